// File paths as UTF-8 strings. Inside wafer every path is a UTF-8 std::string; a path
// becomes a std::filesystem::path only where it reaches the file system, and through these
// two functions. `std::filesystem::path(std::string)` and `path::string()` use the narrow
// encoding of the C library, which on Windows is the ANSI code page, not UTF-8: a model at
// "C:\\Modèles\\m.gguf" would be looked for under another name. The char8_t forms are UTF-8
// on every OS: UTF-16 at Windows' boundary, the bytes as they are on POSIX.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace wafer {

// The path named by the UTF-8 string `utf8`. Bytes that are not UTF-8 (a POSIX file name
// can hold any) are kept as they are where the system allows it.
std::filesystem::path path_from_utf8(std::string_view utf8);
// The path as a UTF-8 string (for messages, URIs, comparisons); never throws.
std::string utf8_from_path(const std::filesystem::path& path);

}  // namespace wafer
