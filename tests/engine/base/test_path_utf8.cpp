// UTF-8 paths at the file system's boundary (engine/base/path_utf8.h): names with spaces and
// letters outside ASCII reach the file system unchanged and come back as the same UTF-8,
// and the messages that name a file name it in UTF-8. Run under wine as well: there the
// boundary is UTF-16 and the narrow conversions would use the ANSI code page.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "engine/base/path_utf8.h"
#include "engine/gguf/gguf.h"
#include "engine/gguf/gguf_writer.h"
#include "tests/support/testing.h"

using namespace wafer;
namespace fs = std::filesystem;

namespace {

// Latin-1, CJK and Cyrillic letters and a space: no single ANSI code page holds them all.
const std::string kFolder = "Modèles 模型 Ёж";
const std::string kFile = "tiny modèl ü.gguf";

}  // namespace

TEST_CASE("path_utf8: a UTF-8 string and its path convert back and forth unchanged", "[path]") {
  for (const std::string s : {"a.gguf", "C:/Modèles/m.gguf", "/home/u/模型/m 1.gguf", "\\\\server\\share\\Ёж.gguf", ""}) {
    INFO(s);
    CHECK(utf8_from_path(path_from_utf8(s)) == s);
  }
  CHECK(utf8_from_path(path_from_utf8(kFolder).filename()) == kFolder);
}

TEST_CASE("path_utf8: a file under a non-ASCII name is created, listed and opened by that name", "[path]") {
  test::TempDir dir;
  const fs::path folder = dir.path() / path_from_utf8(kFolder);
  fs::create_directories(folder);
  const fs::path file = folder / path_from_utf8(kFile);
  GgufWriter w;
  w.add_string("general.architecture", "llama");
  REQUIRE(w.write(file).ok());

  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir.path())) names.push_back(utf8_from_path(e.path().filename()));
  CHECK(names == std::vector<std::string>{kFolder});
  const std::string utf8 = utf8_from_path(dir.path()) + "/" + kFolder + "/" + kFile;
  CHECK(fs::is_regular_file(path_from_utf8(utf8)));

  auto opened = GgufFile::open(path_from_utf8(utf8));
  INFO((opened.ok() ? "" : opened.error().message));
  REQUIRE(opened.ok());
  CHECK(*opened->get_string("general.architecture") == "llama");

  // A message names the file in UTF-8, as it was given.
  const std::string missing = utf8_from_path(dir.path()) + "/" + kFolder + "/nope é.gguf";
  auto failed = GgufFile::open(path_from_utf8(missing));
  REQUIRE_FALSE(failed.ok());
  CHECK_THAT(failed.error().message, Catch::StartsWith(utf8_from_path(path_from_utf8(missing)) + ": "));
  CHECK_THAT(failed.error().message, Catch::Contains("nope é.gguf"));
}
