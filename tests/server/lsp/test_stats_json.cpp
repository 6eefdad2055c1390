// `wafer/stats`'s model part: while the bundled model serves, the catalogue model to pull
// instead and, when the catalogue pairs it with one, its draft model; while a catalogue
// model serves without the draft paired with it, that draft. Neither draft when the
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

TEST_CASE("stats: a catalogue model serves without the draft paired with it: that draft, to pull", "[lsp][stats]") {
  test::ScopedEnv none("WAFER_CATALOG", nullptr);
  test::TempDir dir;
  test::ScopedEnv cache("XDG_CACHE_HOME", dir.path().string().c_str());  // an empty pull cache
  const Catalog catalog = builtin_catalog();
  const CatalogModel* model = catalog.find(kSuggestedModel);
  REQUIRE(model);
  const CatalogModel* draft = catalog.find(model->draft);
  REQUIRE(draft);
  Stats stats;
  ModelInfo info;
  ServiceStatus status;
  status.model = &info;
  status.model_choice = ModelChoice{(dir / "wafer" / "models" / std::string(model->file)).string(), ModelSource::kCache,
                                    model->name};
  Options options;
  auto model_json = [&] { return stats_json(stats, status, options, 0)["model"]; };
  json m = model_json();
  CHECK(m["suggested_draft"] == json{{"name", draft->name}, {"bytes", draft->size}, {"for", model->name}});
  CHECK_FALSE(m.contains("suggested"));  // the model itself is there

  options.draft_model = "none";  // no drafting wanted (or another draft named)
  CHECK_FALSE(model_json().contains("suggested_draft"));
  options.draft_model = "";
  info.draft_model = "tiny, 3 parameters";  // a draft drafts already
  CHECK_FALSE(model_json().contains("suggested_draft"));
  info.draft_model = "";
  status.model_choice->catalogue_name = "";  // a model set by its path
  CHECK_FALSE(model_json().contains("suggested_draft"));
  status.model_choice->catalogue_name = model->name;
  CHECK(model_json().contains("suggested_draft"));
  test::write_file(dir / "wafer" / "models" / std::string(draft->file), "GGUF");  // pulled since
  CHECK_FALSE(model_json().contains("suggested_draft"));
}
