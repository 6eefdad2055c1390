#include "engine/base/path_utf8.h"

namespace wafer {

std::filesystem::path path_from_utf8(std::string_view utf8) {
  try {
    return std::filesystem::path(std::u8string_view(reinterpret_cast<const char8_t*>(utf8.data()), utf8.size()));
  } catch (const std::exception&) {
    // Not UTF-8 where the system's paths are UTF-16: the narrow conversion is all there is.
    return std::filesystem::path(std::string(utf8));
  }
}

std::string utf8_from_path(const std::filesystem::path& path) {
  try {
    const std::u8string s = path.u8string();
    return std::string(reinterpret_cast<const char*>(s.data()), s.size());
  } catch (const std::exception&) {
    return "(a file name that is not valid Unicode)";
  }
}

}  // namespace wafer
