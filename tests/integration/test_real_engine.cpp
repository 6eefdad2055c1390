// End to end with the in-process engine: a tiny random-weight model written by the
// synthetic-model writer, served by `wafer lsp --model`. While load_engine is still the
// stub (it answers "not implemented yet"), the test reports itself skipped (exit 77);
// once the engine lands it runs unchanged.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>

#include "engine/synthetic_model.h"
#include "tests/support/lsp_client.h"

using namespace wafer::test;

TEST_CASE("real engine: burst of inline completions on a synthetic model", "[integration][engine]") {
  TempDir dir;
  wafer::SyntheticModelSpec spec;
  spec.architecture = "qwen2";
  REQUIRE(wafer::write_synthetic_model(spec, dir / "tiny.gguf"));
  LspClient c({"--model", (dir / "tiny.gguf").string(), "--debounce-ms", "20", "--max-tokens", "8", "--threads", "1"});
  c.initialize({{"general", {{"positionEncodings", {"utf-8"}}}}});
  auto loaded = c.wait_for([](const json& m) {
    std::string method = m.value("method", "");
    return method == "window/showMessage" ||
           (method == "window/logMessage" && m["params"]["message"].get<std::string>().find("model loaded") != std::string::npos);
  });
  REQUIRE(loaded);
  if ((*loaded)["method"] == "window/showMessage") {
    std::string message = (*loaded)["params"]["message"];
    if (message.find("not implemented yet") != std::string::npos) {
      std::printf("SKIPPED: the in-process engine has not landed (%s)\n", message.c_str());
      std::fflush(stdout);
      std::_Exit(kSkipExitCode);
    }
    FAIL("model load failed: " << message);
  }
  const char* uri = "file:///work/fib.py";
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1},
                                                      {"text", "def fib(n):\n    return \n"}}}});
  std::vector<int64_t> ids;
  int version = 1, col = 11;
  for (char ch : std::string("fib")) {
    c.notify("textDocument/didChange",
             {{"textDocument", {{"uri", uri}, {"version", ++version}}},
              {"contentChanges", {{{"range", {{"start", {{"line", 1}, {"character", col}}}, {"end", {{"line", 1}, {"character", col}}}}},
                                   {"text", std::string(1, ch)}}}}});
    ++col;
    ids.push_back(c.send_request("textDocument/inlineCompletion",
                                 {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 1}, {"character", col}}},
                                  {"context", {{"triggerKind", 2}}}}));
  }
  for (size_t i = 0; i + 1 < ids.size(); ++i) {
    auto r = c.wait_for_response(ids[i], 60000);
    REQUIRE(r);
    CHECK((*r)["error"]["code"] == -32800);
  }
  auto last = c.wait_for_response(ids.back(), 60000);
  REQUIRE(last);
  INFO(last->dump());
  REQUIRE(last->contains("result"));
  CHECK((*last)["result"]["items"].is_array());
  json stats = c.request("wafer/stats", nullptr);
  CHECK(stats["result"]["counts"]["outcome_done"] == 1);
  CHECK(c.shutdown_and_exit() == 0);
}
