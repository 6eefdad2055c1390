// The allowed workspace roots (server/index/allowed_roots.h): a folder at or below an
// allowed root is allowed; one outside, the whole file system, a symbolic link or `..`
// leading out, a relative path and a URI that is not file: are not; nothing is limited
// unless asked.
#include <catch2/catch.hpp>

#include <filesystem>
#include <system_error>

#include "server/index/allowed_roots.h"
#include "server/prompt/prompt_paths.h"
#include "tests/support/testing.h"

using namespace wafer;
using wafer::test::TempDir;
namespace fs = std::filesystem;

TEST_CASE("allowed roots: inside is allowed, outside and escapes are not", "[allowed_roots]") {
  TempDir dir;
  fs::create_directories(dir / "allowed" / "project");
  fs::create_directories(dir / "outside");
  // Where links cannot be made (Windows without the privilege), their checks are left out.
  std::error_code link_error;
  fs::create_directory_symlink(dir / "outside", dir / "allowed" / "escape", link_error);
  auto roots = resolve_allowed_roots({(dir / "allowed").string()});
  REQUIRE(roots);
  const AllowedRoots allowed{true, *roots};
  CHECK(check_allowed_root(allowed, (dir / "allowed").string()));
  CHECK(check_allowed_root(allowed, (dir / "allowed" / "project").string()));
  CHECK(check_allowed_root(allowed, (dir / "allowed" / "not-yet").string()));  // need not exist
  CHECK_FALSE(check_allowed_root(allowed, (dir / "outside").string()));
  if (!link_error) {
    CHECK_FALSE(check_allowed_root(allowed, (dir / "allowed" / "escape").string()));
    CHECK_FALSE(check_allowed_root(allowed, (dir / "allowed" / "escape" / "x").string()));
  }
  CHECK_FALSE(check_allowed_root(allowed, (dir / "allowed" / ".." / "outside").string()));
  CHECK_FALSE(check_allowed_root(allowed, (dir / "allowed-not").string()));  // a prefix is not a parent
  CHECK_FALSE(check_allowed_root(allowed, "/"));
  CHECK_FALSE(check_allowed_root(allowed, "allowed/project"));
  CHECK(check_allowed_root_uri(allowed, uri_from_path((dir / "allowed" / "project").string())));
  CHECK_FALSE(check_allowed_root_uri(allowed, "untitled:x"));
  const std::string message = check_allowed_root(allowed, (dir / "outside").string()).error().message;
  CHECK(message.find("outside the folders this daemon allows") != std::string::npos);
  CHECK(message.find("--allow-root") != std::string::npos);

  // Not limited (stdio without --allow-root): anything goes.
  CHECK(check_allowed_root(AllowedRoots{}, "/"));
  CHECK(check_allowed_root_uri(AllowedRoots{}, "untitled:x"));
  // Limited to nothing: nothing goes.
  CHECK_FALSE(check_allowed_root(AllowedRoots{true, {}}, (dir / "allowed").string()));
}

TEST_CASE("allowed roots: the whole file system and relative folders are never allowed roots", "[allowed_roots]") {
  CHECK_FALSE(resolve_allowed_roots({"/"}));
  CHECK_FALSE(resolve_allowed_roots({"/tmp/.."}));
  CHECK_FALSE(resolve_allowed_roots({"relative"}));
  CHECK(resolve_allowed_roots({}));
}
