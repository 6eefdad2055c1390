// The workspace index: definitions of every file of a bundled language under the root,
// .gitignore and limits respected, lookups by name, one file replaced or removed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "server/index/workspace_index.h"
#include "tests/support/testing.h"

using namespace wafer;
using wafer::test::TempDir;
using wafer::test::write_file;

namespace {

bool any_related(std::string_view, std::string_view) { return true; }
bool same_language(std::string_view a, std::string_view b) { return a == b; }

std::vector<std::string> paths(const std::vector<ExtraSource>& sources) {
  std::vector<std::string> out;
  for (const auto& s : sources) out.push_back(s.path);
  return out;
}

void make_workspace(const TempDir& dir) {
  write_file(dir / "main.py", "from util import gamma\n\ndef main():\n    return gamma(2)\n");
  write_file(dir / "util.py", "def gamma(z):\n    return z - 3\n\nclass Delta:\n    pass\n");
  write_file(dir / "pkg" / "deep" / "more.py", "def epsilon():\n    return 5\n");
  write_file(dir / "lib.c", "int gamma(int z) { return z - 3; }\n");
  write_file(dir / "notes.txt", "def gamma(): not code\n");
  write_file(dir / ".gitignore", "build/\n*.gen.py\n");
  write_file(dir / "build" / "out.py", "def gamma():\n    return 'built'\n");
  write_file(dir / "x.gen.py", "def gamma():\n    return 'generated'\n");
  write_file(dir / ".git" / "hooks" / "h.py", "def gamma():\n    return 'hook'\n");
}

}  // namespace

TEST_CASE("workspace index: the definitions of the files git would keep", "[workspace_index]") {
  TempDir dir;
  make_workspace(dir);
  auto index = WorkspaceIndex::build(dir.path().string(), IndexLimits{});
  std::vector<std::string> files;
  for (const auto& f : index->files()) files.push_back(f->path);
  CHECK(files == std::vector<std::string>{"lib.c", "main.py", "pkg/deep/more.py", "util.py"});
  CHECK(index->counts().files == 4);
  CHECK(index->counts().ignored >= 3);  // build/, x.gen.py, .git
  CHECK_FALSE(index->counts().truncated);
  CHECK(index->counts().bytes > 0);

  CHECK(paths(index->sources_for({"gamma"}, "python", {}, any_related)) == std::vector<std::string>{"lib.c", "util.py"});
  CHECK(paths(index->sources_for({"gamma"}, "python", {}, same_language)) == std::vector<std::string>{"util.py"});
  CHECK(paths(index->sources_for({"gamma", "epsilon"}, "python", {"util.py"}, same_language)) ==
        std::vector<std::string>{"pkg/deep/more.py"});
  CHECK(index->sources_for({"nothing_like_it"}, "python", {}, any_related).empty());
  const auto util = index->sources_for({"Delta"}, "python", {}, same_language);
  REQUIRE(util.size() == 1);
  const auto& defs = *util[0].definitions;
  CHECK(std::any_of(defs.begin(), defs.end(), [](const Definition& d) { return d.name == "Delta"; }));
}

TEST_CASE("workspace index: limits end the walk with what it has", "[workspace_index]") {
  TempDir dir;
  make_workspace(dir);
  write_file(dir / "big.py", "def huge():\n    pass\n" + std::string(5000, '#'));
  IndexLimits limits;
  limits.max_file_bytes = 1000;
  auto index = WorkspaceIndex::build(dir.path().string(), limits);
  CHECK(index->counts().too_large == 1);
  CHECK(index->sources_for({"huge"}, "python", {}, any_related).empty());
  limits.max_files = 2;
  index = WorkspaceIndex::build(dir.path().string(), limits);
  CHECK(index->counts().files == 2);
  CHECK(index->counts().truncated);
  // Every file of a language is indexed, too large or left out at the limit.
  const size_t skipped = index->counts().limit_skipped;
  CHECK(skipped > 0);
  CHECK(index->counts().files + index->counts().too_large + skipped == 5);
  // At the limit a new file is not added (and counted); a changed one is still replaced.
  write_file(dir / "new.py", "def eta():\n    return 1\n");
  auto next = index->with_file("new.py", WorkspaceIndex::index_file(dir.path().string(), "new.py", limits), limits);
  CHECK(next->counts().files == 2);
  CHECK(next->counts().limit_skipped == skipped + 1);
  const std::string kept = next->files()[0]->path;
  next = next->with_file(kept, WorkspaceIndex::index_file(dir.path().string(), kept, limits), limits);
  CHECK(next->counts().files == 2);
  CHECK(next->counts().limit_skipped == skipped + 1);
  std::filesystem::remove(dir / "new.py");
  // The source limit: no more than max_total_bytes of text is read.
  limits = IndexLimits{};
  limits.max_total_bytes = 100;
  index = WorkspaceIndex::build(dir.path().string(), limits);
  CHECK(index->counts().source_bytes <= 100);
  CHECK(index->counts().limit_skipped > 0);
  std::atomic<bool> cancel{true};
  index = WorkspaceIndex::build(dir.path().string(), IndexLimits{}, &cancel);
  CHECK(index->counts().files == 0);
}

TEST_CASE("workspace index: one file changed, added or removed", "[workspace_index]") {
  TempDir dir;
  make_workspace(dir);
  auto index = WorkspaceIndex::build(dir.path().string(), IndexLimits{});
  write_file(dir / "util.py", "def zeta():\n    return 0\n");
  auto next = index->with_file("util.py", WorkspaceIndex::index_file(dir.path().string(), "util.py", IndexLimits{}),
                               IndexLimits{});
  CHECK(paths(next->sources_for({"gamma"}, "python", {}, same_language)).empty());
  CHECK(paths(next->sources_for({"zeta"}, "python", {}, same_language)) == std::vector<std::string>{"util.py"});
  CHECK(paths(index->sources_for({"gamma"}, "python", {}, same_language)) == std::vector<std::string>{"util.py"});
  write_file(dir / "new.py", "def eta():\n    return 1\n");
  next = next->with_file("new.py", WorkspaceIndex::index_file(dir.path().string(), "new.py", IndexLimits{}),
                         IndexLimits{});
  CHECK(next->counts().files == 5);
  next = next->with_file("new.py", nullptr, IndexLimits{});
  CHECK(next->counts().files == 4);
  CHECK(WorkspaceIndex::index_file(dir.path().string(), "notes.txt", IndexLimits{}) == nullptr);
  CHECK(WorkspaceIndex::index_file(dir.path().string(), "missing.py", IndexLimits{}) == nullptr);
}

TEST_CASE("workspace index: where file names ignore case, an open document hides its file whatever the case", "[workspace_index]") {
  TempDir dir;
  write_file(dir / "Src" / "Util.py", "def gamma(z):\n    return z - 3\n");
  write_file(dir / "other.py", "def gamma():\n    return 1\n");
  IndexLimits folding;
  folding.names = {true, true};
  auto index = WorkspaceIndex::build(dir.path().string(), folding);
  // The editor has it open as "src/util.py" (its URI spelled in another case).
  const std::vector<std::string> open{file_key("src/util.py", folding.names)};
  CHECK(paths(index->sources_for({"gamma"}, "python", open, same_language)) == std::vector<std::string>{"other.py"});
  // A change reported under another case replaces the entry, not adds a second one.
  auto changed = index->with_file("SRC/UTIL.PY", WorkspaceIndex::index_file(dir.path().string(), "Src/Util.py", folding),
                                  folding);
  CHECK(changed->counts().files == 2);

  auto exact = WorkspaceIndex::build(dir.path().string(), IndexLimits{});
  CHECK(paths(exact->sources_for({"gamma"}, "python", {"src/util.py"}, same_language)) ==
        std::vector<std::string>{"Src/Util.py", "other.py"});
}

TEST_CASE("workspace index: a symlinked file is read only when it points inside the workspace at a file kept", "[workspace_index]") {
  TempDir outside, dir;
  write_file(outside / "secret.py", "def leaked():\n    return 'outside'\n");
  write_file(dir / "main.py", "def main():\n    return 1\n");
  write_file(dir / "lib" / "util.py", "def util():\n    return 2\n");
  write_file(dir / ".env", "API_KEY=1234\n");
  std::error_code link_error;
  std::filesystem::create_symlink(outside / "secret.py", dir / "notes.py", link_error);
  if (link_error) {
    // Windows without the privilege to make links (and mingw under wine): nothing to check.
    WARN("no symbolic link could be made here: " << link_error.message());
    return;
  }
  std::filesystem::create_symlink(dir / "lib" / "util.py", dir / "alias.py");
  std::filesystem::create_symlink(dir / ".env", dir / "config.py");

  auto index = WorkspaceIndex::build(dir.path().string(), IndexLimits{});
  std::vector<std::string> files;
  for (const auto& f : index->files()) files.push_back(f->path);
  CHECK(files == std::vector<std::string>{"alias.py", "lib/util.py", "main.py"});
  CHECK(index->counts().excluded >= 2);  // notes.py (outside), config.py (.env under another name)
  CHECK(WorkspaceIndex::index_file(dir.path().string(), "notes.py", IndexLimits{}) == nullptr);
  CHECK(WorkspaceIndex::index_file(dir.path().string(), "config.py", IndexLimits{}) == nullptr);
  CHECK(WorkspaceIndex::index_file(dir.path().string(), "alias.py", IndexLimits{}) != nullptr);
}
