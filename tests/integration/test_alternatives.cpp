// Alternatives end to end: `wafer lsp` with the bundled model over pipes. An invoked
// inline request returns several distinct suggestions, each a non-empty insertText
// inserted at the cursor; an automatic request at the same place returns one.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "tests/support/lsp_client.h"

using namespace wafer::test;

namespace {

std::filesystem::path bundled_model() {
  return std::filesystem::path(__FILE__).parent_path() / ".." / ".." / "models" / "wafer-tiny-code-q8_0.gguf";
}

}  // namespace

TEST_CASE("alternatives: an invoked request to the bundled model returns several distinct items", "[integration][alternatives]") {
  LspClient c({"--model", bundled_model().string(), "--threads", "1", "--max-tokens", "24", "--alternatives", "4"});
  c.initialize({{"general", {{"positionEncodings", {"utf-8"}}}}});
  REQUIRE(c.wait_for([](const json& m) {
    return m.value("method", "") == "window/logMessage" &&
           m["params"]["message"].get<std::string>().find("model loaded") != std::string::npos;
  }));
  const char* uri = "file:///work/shapes.py";
  const std::string text =
      "import math\n\n\nclass Circle:\n    def __init__(self, radius):\n        self.radius = radius\n\n"
      "    def area(self):\n        return \n";
  c.notify("textDocument/didOpen",
           {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  const json cursor = {{"line", 8}, {"character", 15}};
  json invoked = c.request("textDocument/inlineCompletion",
                           {{"textDocument", {{"uri", uri}}}, {"position", cursor}, {"context", {{"triggerKind", 1}}}});
  INFO(invoked.dump());
  REQUIRE(invoked.contains("result"));
  const json& items = invoked["result"]["items"];
  REQUIRE(items.is_array());
  CHECK(items.size() > 1);
  CHECK(items.size() <= 4);
  std::set<std::string> distinct;
  for (const json& item : items) {
    REQUIRE(item["insertText"].is_string());
    const std::string insert = item["insertText"];
    CHECK(insert.find_first_not_of(" \t\r\n") != std::string::npos);
    CHECK(item["range"]["start"] == cursor);
    CHECK(item["range"]["end"] == cursor);
    distinct.insert(insert);
  }
  CHECK(distinct.size() == items.size());
  const double alternatives_ms = invoked["result"]["wafer"]["alternatives_ms"];
  const double greedy_ms = invoked["result"]["wafer"]["engine_ms"];
  WARN("greedy engine_ms " << greedy_ms << ", 3 alternatives together " << alternatives_ms << " ms");

  // The alternatives reuse the greedy run's cached prompt: ~1 token to prefill each.
  json counts = c.request("wafer/stats", nullptr)["result"]["counts"];
  INFO(counts.dump());
  const int runs = counts["alternative_outcome_done"];
  CHECK(runs == 3);
  CHECK(counts["alternative_tokens_prefilled"].get<int>() <= runs);

  json automatic = c.request("textDocument/inlineCompletion",
                             {{"textDocument", {{"uri", uri}}}, {"position", cursor}, {"context", {{"triggerKind", 2}}}});
  REQUIRE(automatic.contains("result"));
  CHECK(automatic["result"]["items"].size() <= 1);
  CHECK(c.shutdown_and_exit() == 0);
}
