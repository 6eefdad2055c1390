#include "engine/base/version.h"

namespace wafer {

const char* version() { return WAFER_VERSION; }

std::string build_description() {
  std::string s = "wafer ";
  s += WAFER_VERSION;
#if defined(__clang__)
  s += " (clang " __clang_version__;
#elif defined(__GNUC__)
  s += " (g++ " __VERSION__;
#else
  s += " (unknown compiler";
#endif
  s += ", " WAFER_BUILD_TYPE ")";
  return s;
}

}  // namespace wafer
