// `wafer/stats`'s model part while the bundled model serves: the catalogue model to pull
// instead and, when the catalogue pairs it with one, its draft model, unless the
// draftModel setting names another draft or none.
#include <catch2/catch.hpp>

#include <string>

#include "server/lsp/stats_json.h"
#include "server/pull/model_catalog.h"
#include "tests/support/testing.h"

using namespace wafer;
using json = nlohmann::json;

namespace {

json model_part(const Options& options) {
  Stats stats;
  ModelInfo info;
  info.name = "wafer-tiny";
  ServiceStatus status;
  status.model = &info;
  status.model_choice = ModelChoice{"/x/models/wafer-tiny-code-q8_0.gguf", ModelSource::kBundled, ""};
  return stats_json(stats, status, options, 0)["model"];
}

}  // namespace

TEST_CASE("stats: the bundled model serves: the suggested model and its draft", "[lsp][stats]") {
  test::ScopedEnv none("WAFER_CATALOG", nullptr);
  const Catalog catalog = builtin_catalog();
  const CatalogModel* model = catalog.find(catalog.suggested);
  REQUIRE(model);
  REQUIRE_FALSE(model->draft.empty());
  const CatalogModel* draft = catalog.find(model->draft);
  REQUIRE(draft);

  Options options;
  json m = model_part(options);
  CHECK(m["source"] == "bundled");
  CHECK(m["suggested"] == json{{"name", model->name},
                               {"bytes", model->size},
                               {"draft", {{"name", draft->name}, {"bytes", draft->size}}}});

  // draftModel "none" (no drafting) or another draft: the model alone.
  for (const char* setting : {"none", "/models/my-draft.gguf"}) {
    options.draft_model = setting;
    m = model_part(options);
    CHECK(m["suggested"] == json{{"name", model->name}, {"bytes", model->size}});
  }

  // Not serving the bundled model: nothing suggested.
  Stats stats;
  ModelInfo info;
  ServiceStatus status;
  status.model = &info;
  status.model_choice = ModelChoice{"/c/" + std::string(model->file), ModelSource::kCache, model->name};
  CHECK_FALSE(stats_json(stats, status, Options{}, 0)["model"].contains("suggested"));
}

TEST_CASE("stats: a catalogue without drafts suggests the model alone", "[lsp][stats]") {
  test::TempDir dir;
  test::write_file(dir / "team.txt", "team-small 10 " + std::string(64, 'a') + " http://127.0.0.1:1/s.gguf\n");
  test::ScopedEnv file("WAFER_CATALOG", (dir / "team.txt").string().c_str());
  CHECK(model_part(Options{})["suggested"] == json{{"name", "team-small"}, {"bytes", 10}});
}
