// Which model serves: the setting (expanded, or a pulled catalogue name), else the most
// capable pulled catalogue model, else the bundled one; and the expansion of `~` and $VAR.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "server/platform/platform.h"
#include "server/pull/model_catalog.h"
#include "server/pull/model_choice.h"
#include "tests/support/testing.h"

using namespace wafer;
namespace fs = std::filesystem;

namespace {

using test::ScopedEnv;

void touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  test::write_file(p, "GGUF");
}

}  // namespace

TEST_CASE("model paths: ~ and $VAR / ${VAR} are expanded, unset variables are errors", "[pull][choice]") {
  ScopedEnv home("HOME", "/home/me");
  ScopedEnv models("WAFER_TEST_MODELS", "/data/models");
  ScopedEnv unset("WAFER_TEST_UNSET", nullptr);
  CHECK(*expand_user_path("~") == "/home/me");
  CHECK(*expand_user_path("~/m.gguf") == "/home/me/m.gguf");
  CHECK(*expand_user_path("$WAFER_TEST_MODELS/m.gguf") == "/data/models/m.gguf");
  CHECK(*expand_user_path("${WAFER_TEST_MODELS}x/m.gguf") == "/data/modelsx/m.gguf");
  CHECK(*expand_user_path("~/$WAFER_TEST_MODELS") == "/home/me//data/models");
  // Left alone: a ~ that is not the first component, a lone or trailing $, plain paths.
  CHECK(*expand_user_path("/a/~b/c") == "/a/~b/c");
  CHECK(*expand_user_path("~other/m.gguf") == "~other/m.gguf");
  CHECK(*expand_user_path("/a/$/b$") == "/a/$/b$");
  CHECK(*expand_user_path("qwen2.5-coder-1.5b") == "qwen2.5-coder-1.5b");

  auto bad = expand_user_path("$WAFER_TEST_UNSET/m.gguf");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("$WAFER_TEST_UNSET is not set") != std::string::npos);
  CHECK_FALSE(expand_user_path("${WAFER_TEST_MODELS/m.gguf").ok());  // unclosed
  ScopedEnv no_home("HOME", nullptr);
  CHECK_FALSE(expand_user_path("~/m.gguf").ok());
}

TEST_CASE("model choice: the setting, then the best pulled model, then the bundled one", "[pull][choice]") {
  test::TempDir dir;
  ModelSearch search;
  search.cache_dir = (dir / "cache").string();
  search.bundled = {dir / "installed" / "wafer-tiny.gguf", dir / "source" / "wafer-tiny.gguf"};

  // Nothing anywhere: an error that says how to get a model.
  auto none = choose_model("", search);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().message.find("wafer pull " + std::string(kSuggestedModel)) != std::string::npos);

  // The bundled model: the first candidate that exists (installed before the source tree).
  touch(dir / "source" / "wafer-tiny.gguf");
  auto bundled = choose_model("", search);
  REQUIRE(bundled.ok());
  CHECK(bundled->source == ModelSource::kBundled);
  CHECK(bundled->path == (dir / "source" / "wafer-tiny.gguf").string());
  touch(dir / "installed" / "wafer-tiny.gguf");
  CHECK(choose_model("", search)->path == (dir / "installed" / "wafer-tiny.gguf").string());
  CHECK_THAT(describe_choice(*choose_model("", search), "wafer-tiny-code"),
             Catch::Contains("wafer-tiny-code (") && Catch::Contains("wafer pull " + std::string(kSuggestedModel)));

  // A pulled catalogue model beats the bundled one; the most capable (largest) of several.
  const std::vector<CatalogModel> catalogue = builtin_catalog().models;
  REQUIRE(catalogue.size() >= 3);
  touch(dir / "cache" / std::string(catalogue[0].file));
  auto small = choose_model("", search);
  REQUIRE(small.ok());
  CHECK(small->source == ModelSource::kCache);
  CHECK(small->catalogue_name == catalogue[0].name);
  touch(dir / "cache" / std::string(catalogue[2].file));
  touch(dir / "cache" / (std::string(catalogue[1].file) + ".part"));  // an unfinished download does not count
  auto best = choose_model("", search);
  REQUIRE(best.ok());
  CHECK(best->catalogue_name == catalogue[2].name);
  CHECK(best->path == (dir / "cache" / std::string(catalogue[2].file)).string());
  CHECK_THAT(describe_choice(*best, ""), Catch::Contains(std::string(catalogue[2].file)) &&
                                             !Catch::Contains("wafer pull"));

  // The setting wins over both: a file as given, with ~ and $VAR expanded...
  touch(dir / "mine.gguf");
  ScopedEnv var("WAFER_TEST_DIR", dir.path().c_str());
  auto set = choose_model("$WAFER_TEST_DIR/mine.gguf", search);
  REQUIRE(set.ok());
  CHECK(set->source == ModelSource::kSetting);
  CHECK(set->path == (dir / "mine.gguf").string());
  {
    ScopedEnv home("HOME", dir.path().c_str());
    CHECK(choose_model("~/mine.gguf", search)->path == (dir / "mine.gguf").string());
  }
  // ... or a catalogue name looked up in the pull cache, even when a larger one is there.
  auto named = choose_model(std::string(catalogue[0].name), search);
  REQUIRE(named.ok());
  CHECK(named->source == ModelSource::kSetting);
  CHECK(named->catalogue_name == catalogue[0].name);
  CHECK(named->path == (dir / "cache" / std::string(catalogue[0].file)).string());
  // A name that was not pulled, or a path that does not exist, is not replaced by a default.
  auto not_pulled = choose_model(std::string(catalogue[1].name), search);
  REQUIRE_FALSE(not_pulled.ok());
  CHECK(not_pulled.error().message.find("run: wafer pull " + std::string(catalogue[1].name)) != std::string::npos);
  CHECK(choose_model("/no/such/model.gguf", search)->path == "/no/such/model.gguf");  // the loader reports it
  CHECK_FALSE(choose_model("$WAFER_TEST_NOT_SET_ANYWHERE/m.gguf", search).ok());
}

TEST_CASE("draft model: the setting, else the catalogue's draft of the chosen model when pulled", "[pull][choice]") {
  ScopedEnv catalog_env("WAFER_CATALOG", nullptr);
  test::TempDir dir;
  ModelSearch search;
  search.cache_dir = (dir / "cache").string();
  const Catalog catalogue = builtin_catalog();
  // A catalogue model with a draft, and the draft (which has none of its own).
  const CatalogModel* big = nullptr;
  for (const CatalogModel& m : catalogue.models)
    if (!m.draft.empty()) big = &m;
  REQUIRE(big != nullptr);
  const CatalogModel* small = catalogue.find(big->draft);
  REQUIRE(small != nullptr);
  REQUIRE(small->draft.empty());
  const std::string big_path = (dir / "cache" / big->file).string(), small_path = (dir / "cache" / small->file).string();

  touch(big_path);
  auto chosen = choose_model("", search);
  REQUIRE(chosen.ok());
  REQUIRE(chosen->catalogue_name == big->name);
  CHECK(*resolve_draft_model("", *chosen, search) == "");  // its draft was not pulled
  touch(small_path + ".part");
  CHECK(*resolve_draft_model("", *chosen, search) == "");  // nor finished
  touch(small_path);
  chosen = choose_model("", search);
  REQUIRE(chosen->catalogue_name == big->name);  // still the most capable
  CHECK(*resolve_draft_model("", *chosen, search) == small_path);
  CHECK(*resolve_draft_model(std::string(kNoDraftModel), *chosen, search) == "");
  // Named in the setting: the same rule.
  auto named = choose_model(big->name, search);
  REQUIRE(named.ok());
  CHECK(*resolve_draft_model("", *named, search) == small_path);
  // The draft itself, or a model given by path, has no draft of its own.
  auto drafting = choose_model(small->name, search);
  REQUIRE(drafting.ok());
  CHECK(*resolve_draft_model("", *drafting, search) == "");
  touch(dir / "mine.gguf");
  auto mine = choose_model((dir / "mine.gguf").string(), search);
  REQUIRE(mine.ok());
  CHECK(*resolve_draft_model("", *mine, search) == "");
  // A setting wins: a path as given, a catalogue name as its download, a missing name fails.
  CHECK(*resolve_draft_model((dir / "d.gguf").string(), *mine, search) == (dir / "d.gguf").string());
  CHECK(*resolve_draft_model(small->name, *mine, search) == small_path);
  for (const CatalogModel& m : catalogue.models)
    if (&m != big && &m != small) CHECK_FALSE(resolve_draft_model(m.name, *mine, search).ok());  // not pulled
}

TEST_CASE("model choice with $WAFER_CATALOG: the file's models are looked for in the cache", "[pull][choice]") {
  test::TempDir dir;
  ModelSearch search;
  search.cache_dir = (dir / "cache").string();
  search.bundled = {dir / "bundled.gguf"};
  touch(dir / "bundled.gguf");
  touch(dir / "cache" / std::string(builtin_catalog().models[0].file));  // a built-in catalogue model, pulled before
  const std::string digest(64, 'a');
  test::write_file(dir / "team.txt", "team-small 10 " + digest + " http://127.0.0.1:1/s.gguf\n"
                                     "team-big 20 " + digest + " http://127.0.0.1:1/b.gguf\n");
  ScopedEnv file("WAFER_CATALOG", (dir / "team.txt").string().c_str());

  // Only the file's models count: the built-in one in the cache is not chosen.
  auto bundled = choose_model("", search);
  REQUIRE(bundled.ok());
  CHECK(bundled->source == ModelSource::kBundled);
  CHECK_THAT(describe_choice(*bundled, ""), Catch::Contains("wafer pull team-small"));  // the file's first model
  CHECK(suggested_model() == "team-small");
  CHECK(suggested_pull() == "team-small");  // no draft in the file

  touch(dir / "cache" / "s.gguf");
  touch(dir / "cache" / "b.gguf.part");
  auto small = choose_model("", search);
  REQUIRE(small.ok());
  CHECK(small->source == ModelSource::kCache);
  CHECK(small->catalogue_name == "team-small");
  CHECK(small->path == (dir / "cache" / "s.gguf").string());
  touch(dir / "cache" / "b.gguf");
  CHECK(choose_model("", search)->catalogue_name == "team-big");
  CHECK(choose_model("team-small", search)->path == (dir / "cache" / "s.gguf").string());
  CHECK(choose_model("team-small", search)->catalogue_name == "team-small");

  // A bad file: an error naming it and the line, not a silent choice of another model; a
  // setting that is a path still works.
  test::write_file(dir / "team.txt", "team-small 10\n");
  auto bad = choose_model("", search);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.starts_with("WAFER_CATALOG: " + (dir / "team.txt").string() + ":1: "));
  CHECK_FALSE(choose_model("team-small", search).ok());
  CHECK(choose_model((dir / "bundled.gguf").string(), search).ok());
  CHECK(choose_model((dir / "missing.gguf").string(), search)->path == (dir / "missing.gguf").string());
  CHECK(suggested_model() == kSuggestedModel);
  // The built-in catalogue pairs it with a draft: the hint pulls both.
  CHECK(suggested_pull() == std::string(kSuggestedModel) + " --with-draft");
}

TEST_CASE("model choice: this process's search looks next to the binary, then in the source tree", "[pull][choice]") {
  const ModelSearch s = default_model_search("/tmp/cache");
  CHECK(s.cache_dir == "/tmp/cache");
  REQUIRE(s.bundled.size() == 3);
  CHECK(s.bundled[0].string().ends_with("share/wafer/models/" + std::string(kBundledModelFile)));
  // An editor package's layout: bin/<platform>-<arch>/wafer beside bin/<platform>-<arch>/models/.
  CHECK(s.bundled[1] == os::executable_path().parent_path() / "models" / kBundledModelFile);
  // A test binary runs in the build tree: the source tree's bundled model is found.
  CHECK(fs::is_regular_file(s.bundled[2]));
  CHECK(s.bundled[2].filename() == kBundledModelFile);
}
