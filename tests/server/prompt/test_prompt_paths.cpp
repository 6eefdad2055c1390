// File names in prompts: URIs to workspace-relative paths, percent-escapes decoded, and the
// workspace root taken from initialize's workspaceFolders / rootUri / rootPath.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "server/prompt/prompt_paths.h"
#include "server/lsp/protocol.h"

using namespace wafer;

// POSIX paths here; the Windows rules: test_path_styles.cpp.
constexpr PathStyle kPosix = PathStyle::kPosix;

TEST_CASE("prompt paths: relative to the workspace root", "[prompt_paths]") {
  CHECK(path_from_uri("file:///home/u/my%20proj/a%2Bb.py", kPosix) == "/home/u/my proj/a+b.py");
  CHECK(path_from_uri("file:///bad%zzescape%4", kPosix) == "/bad%zzescape%4");  // malformed escapes stay
  CHECK(path_from_uri("untitled:Untitled-1", kPosix) == "untitled:Untitled-1");
  CHECK(prompt_path("file:///home/u/proj", "file:///home/u/proj/src/util.py", kPosix) == "src/util.py");
  CHECK(prompt_path("file:///home/u/proj/", "file:///home/u/proj/main.c", kPosix) == "main.c");
  CHECK(prompt_path("file:///home/u/proj", "file:///home/u/project2/x.py", kPosix) == "/home/u/project2/x.py");  // not inside
  CHECK(prompt_path("", "file:///tmp/x.py", kPosix) == "/tmp/x.py");
  CHECK(repo_name_of("file:///home/u/proj/") == "proj");
  CHECK(repo_name_of("file:///home/u/my%20proj") == "my proj");
  CHECK(repo_name_of("").empty());
}

TEST_CASE("prompt paths: the root from initialize params", "[prompt_paths]") {
  using json = nlohmann::json;
  auto root = [](const json& j) { return j.get<lsp::InitializeParams>().root_uri; };
  CHECK(root({{"workspaceFolders", {{{"uri", "file:///a"}, {"name", "a"}}}}, {"rootUri", "file:///b"}}) == "file:///a");
  CHECK(root({{"workspaceFolders", nullptr}, {"rootUri", "file:///b"}}) == "file:///b");
  CHECK(root({{"rootUri", nullptr}, {"rootPath", "/c"}}) == "file:///c");
  CHECK(root({{"workspaceFolders", "odd"}, {"rootUri", 3}}).empty());  // odd values are ignored, not errors
  CHECK(root(json::object()).empty());
}

TEST_CASE("prompt paths: a file's URI and the workspace an editor would open for it", "[prompt_paths]") {
  REQUIRE(uri_from_absolute_path("/home/u/a b/x+y.py", kPosix) == "file:///home/u/a%20b/x%2By.py");
  REQUIRE(path_from_uri(uri_from_absolute_path("/tmp/dir/é.py", kPosix), kPosix) == "/tmp/dir/é.py");
  const auto relative = uri_from_path("src/x.py");
  REQUIRE(relative.starts_with("file:///"));
  REQUIRE(relative.ends_with("/src/x.py"));

  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("wafer-root-" + std::to_string(::getpid()));
  fs::create_directories(root / "repo" / ".git");
  fs::create_directories(root / "repo" / "pkg" / "sub");
  fs::create_directories(root / "loose");
  REQUIRE(workspace_root_of((root / "repo" / "pkg" / "sub" / "m.py").string()) == (root / "repo").string());
  REQUIRE(workspace_root_of((root / "loose" / "m.py").string()) == (root / "loose").string());
  fs::remove_all(root);
}
