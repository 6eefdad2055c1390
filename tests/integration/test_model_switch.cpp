// The model an editor pulls while the daemon serves the bundled one: `wafer lsp` with no
// model setting serves the bundled model and names the catalogue model to offer; after a
// model lands in the pull cache, `wafer/modelsChanged` makes the daemon choose again and
// load it, without a restart; so does the draft the catalogue pairs it with. The pull cache
// is a temporary XDG_CACHE_HOME.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "server/pull/model_catalog.h"
#include "server/pull/model_choice.h"
#include "tests/support/fixtures/synthetic_model.h"
#include "tests/support/lsp_client.h"

using namespace wafer::test;

namespace {

bool is_model_loaded(const json& m) {
  return m.value("method", "") == "window/logMessage" &&
         m["params"]["message"].get<std::string>().find("model loaded") != std::string::npos;
}

// XDG_CACHE_HOME for the daemons this test starts, restored after.
class CacheHome {
 public:
  explicit CacheHome(const std::string& dir) {
    if (const char* v = std::getenv("XDG_CACHE_HOME")) old_ = v;
    setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  }
  ~CacheHome() {
    if (old_) setenv("XDG_CACHE_HOME", old_->c_str(), 1);
    else unsetenv("XDG_CACHE_HOME");
  }

 private:
  std::optional<std::string> old_;
};

}  // namespace

TEST_CASE("model switch: a model pulled while the bundled one serves takes over on wafer/modelsChanged",
          "[integration][engine]") {
  TempDir dir;
  CacheHome cache_home(dir.path().string());
  LspClient c({"--threads", "1", "--max-tokens", "4"});
  c.initialize();
  REQUIRE(c.wait_for(is_model_loaded, 60000));
  json model = c.request("wafer/stats", nullptr)["result"]["model"];
  REQUIRE(model["source"] == "bundled");
  CHECK(model["suggested"]["name"] == std::string(wafer::kSuggestedModel));
  CHECK(model["suggested"]["bytes"].get<uint64_t>() > 100'000'000);
  // Its draft, which editors pull with it.
  CHECK(model["suggested"]["draft"]["name"] == wafer::builtin_catalog().find(wafer::kSuggestedModel)->draft);
  CHECK(model["suggested"]["draft"]["bytes"].get<uint64_t>() > 100'000'000);

  // Nothing new in the cache: the same model stays, nothing is loaded again.
  c.notify("wafer/modelsChanged", nullptr);
  CHECK(c.request("wafer/stats", nullptr)["result"]["model"]["source"] == "bundled");

  // A catalogue model appears in the pull cache (as `wafer pull` leaves it).
  const wafer::Catalog catalog = wafer::builtin_catalog();
  const wafer::CatalogModel* pulled = catalog.find(wafer::kSuggestedModel);
  REQUIRE(pulled);
  const std::filesystem::path file = dir / "wafer" / "models" / std::string(pulled->file);
  std::filesystem::create_directories(file.parent_path());
  wafer::SyntheticModelSpec spec;
  spec.architecture = "qwen2";
  REQUIRE(wafer::write_synthetic_model(spec, file.string()));
  c.notify("wafer/modelsChanged", nullptr);
  REQUIRE(c.wait_for(is_model_loaded, 60000));
  model = c.request("wafer/stats", nullptr)["result"]["model"];
  CHECK(model["source"] == "cache");
  CHECK(model["path"] == file.string());
  CHECK_FALSE(model.contains("suggested"));
  CHECK_FALSE(model.contains("draft"));
  CHECK(model["suggested_draft"]["name"] == pulled->draft);  // pulled without its draft: editors offer it

  // The model the catalogue pairs with it as its draft appears too (`wafer pull NAME
  // --with-draft`): the same model, now drafted for.
  const wafer::CatalogModel* draft = catalog.find(pulled->draft);
  REQUIRE(draft);
  spec.n_layer = 1;
  spec.seed = 5;
  REQUIRE(wafer::write_synthetic_model(spec, (file.parent_path() / std::string(draft->file)).string()));
  c.notify("wafer/modelsChanged", nullptr);
  REQUIRE(c.wait_for(is_model_loaded, 60000));
  model = c.request("wafer/stats", nullptr)["result"]["model"];
  CHECK(model["path"] == file.string());
  CHECK_THAT(model.value("draft", ""), Catch::EndsWith("parameters, weights read as Q5_0"));
  CHECK_FALSE(model.contains("suggested_draft"));
  c.notify("wafer/modelsChanged", nullptr);  // nothing new: nothing loads
  CHECK(c.request("wafer/stats", nullptr)["result"]["model"].value("draft", "") == model["draft"]);
  CHECK(c.shutdown_and_exit() == 0);
}
