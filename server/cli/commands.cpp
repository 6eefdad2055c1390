#include <cstdio>

#include "server/cli/commands.h"

namespace wafer {

int not_implemented(const char* command) {
  std::fprintf(stderr, "wafer %s: not implemented yet\n", command);
  return kExitUsage;
}

}  // namespace wafer
