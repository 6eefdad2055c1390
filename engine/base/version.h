// wafer's version and a description of how this binary was built.
#pragma once

#include <string>

namespace wafer {

// "0.1.0" (from the top-level CMake project version).
const char* version();

// One line: version, compiler, build type, e.g. "wafer 0.1.0 (g++ 12.2.0, RelWithDebInfo)".
std::string build_description();

}  // namespace wafer
