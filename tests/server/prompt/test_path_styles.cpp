// File URIs and paths by the rules of each OS, on every OS (the functions are pure):
// Windows drive letters as VS Code sends them, backslashes, UNC shares, case-insensitive
// names; POSIX paths unchanged.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "server/prompt/prompt_paths.h"

using namespace wafer;

namespace {
constexpr PathStyle kWin = PathStyle::kWindows;
constexpr PathStyle kPosix = PathStyle::kPosix;
}  // namespace

TEST_CASE("path styles: Windows drive letters, escaped colons, backslashes", "[prompt_paths]") {
  CHECK(path_from_uri("file:///c%3A/Users/me/proj/a.py", kWin) == "c:\\Users\\me\\proj\\a.py");
  CHECK(path_from_uri("file:///C:/Users/me/a%20b.py", kWin) == "C:\\Users\\me\\a b.py");
  CHECK(path_from_uri("file:///d%3A/", kWin) == "d:\\");
  CHECK(path_from_uri("file://server/share/x.py", kWin) == "\\\\server\\share\\x.py");
  CHECK(path_from_uri("untitled:Untitled-1", kWin) == "untitled:Untitled-1");
  // The same URI on POSIX keeps its colon and slashes.
  CHECK(path_from_uri("file:///c%3A/Users/me/a.py", kPosix) == "/c:/Users/me/a.py");
}

TEST_CASE("path styles: URIs from Windows paths as VS Code writes them", "[prompt_paths]") {
  CHECK(uri_from_absolute_path("C:\\Users\\me\\a b.py", kWin) == "file:///c%3A/Users/me/a%20b.py");
  CHECK(uri_from_absolute_path("c:/x/y.c", kWin) == "file:///c%3A/x/y.c");
  CHECK(uri_from_absolute_path("\\\\server\\share\\x.py", kWin) == "file://server/share/x.py");
  CHECK(uri_from_absolute_path("/home/u/a b.py", kPosix) == "file:///home/u/a%20b.py");
  // Back and forth.
  for (const char* p : {"C:\\Program Files\\w\\m.gguf", "e:\\\xc3\xa9t\xc3\xa9\\n.py", "\\\\srv\\s\\f.rs"}) {
    const std::string back = path_from_uri(uri_from_absolute_path(p, kWin), kWin);
    CHECK(same_path(back, p, kWin));
  }
}

TEST_CASE("path styles: Windows names differ in case only: the same file", "[prompt_paths]") {
  CHECK(same_path("C:\\Users\\Me\\A.py", "c:/users/me/a.py", kWin));
  CHECK_FALSE(same_path("C:\\Users\\Me\\A.py", "c:/users/me/b.py", kWin));
  CHECK_FALSE(same_path("/home/Me/a.py", "/home/me/a.py", kPosix));
  CHECK(same_path("/home/me/a.py", "/home/me/a.py", kPosix));
}

TEST_CASE("path styles: prompt paths under a Windows root", "[prompt_paths]") {
  // VS Code's root and a document URI that spells the drive letter differently.
  CHECK(prompt_path("file:///c%3A/Users/me/proj", "file:///C:/Users/me/proj/src/util.py", kWin) == "src/util.py");
  CHECK(prompt_path("file:///c%3A/Users/me/Proj/", "file:///c%3A/users/me/proj/main.c", kWin) == "main.c");
  // Another drive: outside the root, the whole path.
  CHECK(prompt_path("file:///c%3A/proj", "file:///d%3A/proj/a.py", kWin) == "d:\\proj\\a.py");
  // POSIX is case-sensitive.
  CHECK(prompt_path("file:///home/u/Proj", "file:///home/u/proj/a.py", kPosix) == "/home/u/proj/a.py");
}

TEST_CASE("path styles: paths below a root", "[prompt_paths]") {
  CHECK(path_below("C:\\Users\\me\\proj", "c:/users/me/proj/src/a.py", kWin) == "src/a.py");
  CHECK(path_below("C:\\Users\\me\\proj\\", "C:\\Users\\me\\proj\\b.c", kWin) == "b.c");
  CHECK(path_below("C:\\Users\\me\\proj", "C:\\Users\\me\\project\\b.c", kWin) == "");
  CHECK(path_below("C:\\proj", "D:\\proj\\a.py", kWin) == "");
  CHECK(path_below("/home/u/proj", "/home/u/proj/x/y.rs", kPosix) == "x/y.rs");
  CHECK(path_below("/home/u/proj", "/home/u/Proj/x/y.rs", kPosix) == "");
}

TEST_CASE("path styles: the build's own style", "[prompt_paths]") {
  const bool windows = std::filesystem::path::preferred_separator == '\\';
  CHECK(native_path_style() == (windows ? kWin : kPosix));
}
