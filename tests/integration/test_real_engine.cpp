// End to end with the in-process engine: a tiny random-weight model written by the
// synthetic-model writer, served by `wafer lsp --model`. While load_engine is still the
// stub (it answers "not implemented yet"), the test reports itself skipped (exit 77);
// once the engine lands it runs unchanged.
#include <catch2/catch.hpp>

#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "tests/support/fixtures/synthetic_model.h"
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
    REQUIRE(r->contains("result"));  // superseded: no suggestion, not RequestCancelled
    CHECK((*r)["result"]["items"].empty());
    CHECK((*r)["result"]["wafer"]["outcome"] == "superseded");
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

namespace {

// Polls wafer/stats until counts[name] reaches `at_least` (10 s), and returns the stats.
json wait_for_count(LspClient& c, const std::string& name, uint64_t at_least) {
  json stats;
  for (int i = 0; i < 1000; ++i) {
    stats = c.request("wafer/stats", nullptr)["result"];
    if (stats["counts"].value(name, uint64_t{0}) >= at_least) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return stats;
}

// Initializes the daemon, waits for its model, and returns a document of thirty small
// functions (lines 0-89; line 45 is `    return x * 15`).
std::string start_with_functions(LspClient& c) {
  c.initialize({{"general", {{"positionEncodings", {"utf-8"}}}}});
  REQUIRE(c.wait_for([](const json& m) {
    return m.value("method", "") == "window/logMessage" &&
           m["params"]["message"].get<std::string>().find("model loaded") != std::string::npos;
  }));
  std::string text;
  for (int i = 0; i < 30; ++i) text += "def f" + std::to_string(i) + "(x):\n    return x * " + std::to_string(i) + "\n\n";
  return text;
}

}  // namespace

TEST_CASE("real engine: wafer/warm prefills the prompt so the request there reuses it", "[integration][engine]") {
  TempDir dir;
  wafer::SyntheticModelSpec spec;
  spec.architecture = "qwen2";
  REQUIRE(wafer::write_synthetic_model(spec, dir / "tiny.gguf"));
  // No latency budget: on a slow machine (sanitizers) it would cut the cold request's suffix,
  // and the comparison of the two prompts below would compare different prompts.
  LspClient c({"--model", (dir / "tiny.gguf").string(), "--debounce-ms", "0", "--max-tokens", "4", "--threads", "1",
               "--ahead-tokens", "0", "--token-healing", "off", "--latency-budget-ms", "0"});
  const std::string text = start_with_functions(c);
  const json at = {{"line", 45}, {"character", 4}};  // inside `return x * 15`
  for (const char* uri : {"file:///work/warm.py", "file:///work/cold.py"})
    c.notify("textDocument/didOpen",
             {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  // Unknown or out-of-range input is refused without harm.
  c.notify("wafer/warm", {{"textDocument", {{"uri", "file:///work/not-open.py"}}}, {"position", at}});
  c.notify("wafer/warm", {{"textDocument", {{"uri", "file:///work/warm.py"}}}, {"position", {{"line", 9999}, {"character", 0}}}});
  c.notify("wafer/warm", {{"textDocument", {{"uri", "file:///work/warm.py"}}}, {"position", at}});
  json stats = wait_for_count(c, "warm_outcome_done", 1);
  REQUIRE(stats["counts"].value("warm_outcome_done", 0) == 1);
  const uint64_t warmed = stats["counts"].value("warm_prefilled_tokens", uint64_t{0});
  CHECK(warmed > 100);

  auto complete = [&](const char* uri) {
    auto r = c.request("textDocument/inlineCompletion",
                       {{"textDocument", {{"uri", uri}}}, {"position", at}, {"context", {{"triggerKind", 2}}}}, 60000);
    REQUIRE(r.contains("result"));
    return r;
  };
  complete("file:///work/warm.py");
  stats = c.request("wafer/stats", nullptr)["result"];
  // The warm-up left the prompt and the logits after it: no forward pass before the first token.
  CHECK(stats["counts"].value("prefilled_tokens", uint64_t{0}) == 0);
  CHECK(stats["counts"].value("reused_tokens", uint64_t{0}) == warmed);
  // The same request in a document nobody warmed prefills the whole prompt.
  complete("file:///work/cold.py");
  stats = c.request("wafer/stats", nullptr)["result"];
  CHECK(stats["counts"].value("prefilled_tokens", uint64_t{0}) > 1 + warmed * 9 / 10);
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("real engine: wafer/warm with a draft model fills the draft's cache too", "[integration][engine]") {
  TempDir dir;
  wafer::SyntheticModelSpec spec;
  spec.architecture = "qwen2";
  REQUIRE(wafer::write_synthetic_model(spec, dir / "tiny.gguf"));
  LspClient c({"--model", (dir / "tiny.gguf").string(), "--draft-model", (dir / "tiny.gguf").string(),
               "--debounce-ms", "0", "--max-tokens", "8", "--threads", "1", "--ahead-tokens", "0",
               "--token-healing", "off", "--latency-budget-ms", "0"});
  const std::string text = start_with_functions(c);
  const json at = {{"line", 45}, {"character", 4}};
  c.notify("textDocument/didOpen",
           {{"textDocument", {{"uri", "file:///work/warm.py"}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  c.notify("wafer/warm", {{"textDocument", {{"uri", "file:///work/warm.py"}}}, {"position", at}});
  json stats = wait_for_count(c, "warm_outcome_done", 1);
  REQUIRE(stats["counts"].value("warm_outcome_done", 0) == 1);
  CHECK(stats["counts"].value("warm_prefilled_tokens", uint64_t{0}) > 100);
  // The warm-up ran the draft model over the prompt as well.
  REQUIRE(stats["latency_ms"].contains("warm_draft_ms"));
  CHECK(stats["latency_ms"]["warm_draft_ms"]["count"] == 1);
  CHECK(stats["latency_ms"]["warm_draft_ms"]["max"].get<double>() > 0);
  auto r = c.request("textDocument/inlineCompletion",
                     {{"textDocument", {{"uri", "file:///work/warm.py"}}}, {"position", at}, {"context", {{"triggerKind", 2}}}},
                     60000);
  REQUIRE(r.contains("result"));
  stats = c.request("wafer/stats", nullptr)["result"];
  CHECK(stats["counts"].value("prefilled_tokens", uint64_t{0}) == 0);
  CHECK(stats["counts"].value("model_drafts_proposed", uint64_t{0}) > 0);
  CHECK(c.shutdown_and_exit() == 0);
}

// Early prefill: after a keystroke the prompt is prefilled while the debounce runs, so the
// request, when its debounce ends, finds it cached and prefills only the last token; with
// --early-prefill off it prefills what the keystroke changed itself. With --chunk-reuse 0
// that is everything after the edit; with chunk reuse (the default) the text after the
// edit only moved, and a few tokens are prefilled.
TEST_CASE("real engine: a keystroke's prompt is prefilled during its debounce", "[integration][engine]") {
  TempDir dir;
  wafer::SyntheticModelSpec spec;
  spec.architecture = "qwen2";
  REQUIRE(wafer::write_synthetic_model(spec, dir / "tiny.gguf"));
  std::string text;
  for (int i = 0; i < 30; ++i) text += "def f" + std::to_string(i) + "(x):\n    return x * " + std::to_string(i) + "\n\n";
  for (const char* reuse : {"0", "32"})
    for (const char* early : {"on", "off"}) {
      INFO("--early-prefill " << early << " --chunk-reuse " << reuse);
      const bool exact = std::string(reuse) == "0";
      LspClient c({"--model", (dir / "tiny.gguf").string(), "--debounce-ms", "300", "--max-tokens", "4", "--threads",
                   "1", "--ahead-tokens", "0", "--token-healing", "off", "--early-prefill", early, "--chunk-reuse", reuse});
      c.initialize({{"general", {{"positionEncodings", {"utf-8"}}}}});
      REQUIRE(c.wait_for([](const json& m) {
        return m.value("method", "") == "window/logMessage" &&
               m["params"]["message"].get<std::string>().find("model loaded") != std::string::npos;
      }));
      const char* uri = "file:///work/typed.py";
      c.notify("textDocument/didOpen",
               {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
      const json at = {{"line", 45}, {"character", 4}};  // inside `return x * 15`
      auto complete = [&] {
        return c.request("textDocument/inlineCompletion",
                         {{"textDocument", {{"uri", uri}}}, {"position", at}, {"context", {{"triggerKind", 1}}}}, 60000);
      };
      REQUIRE(complete().contains("result"));  // invoked: no debounce; the whole prompt is now cached
      json before = c.request("wafer/stats", nullptr)["result"];
      // A keystroke before the cursor, then the automatic request it brings.
      c.notify("textDocument/didChange",
               {{"textDocument", {{"uri", uri}, {"version", 2}}},
                {"contentChanges", {{{"range", {{"start", {{"line", 2}, {"character", 0}}}, {"end", {{"line", 2}, {"character", 0}}}}},
                                     {"text", "#"}}}}});
      auto r = c.request("textDocument/inlineCompletion",
                         {{"textDocument", {{"uri", uri}}}, {"position", at}, {"context", {{"triggerKind", 2}}}}, 60000);
      REQUIRE(r.contains("result"));
      json after = c.request("wafer/stats", nullptr)["result"];
      auto delta = [&](const char* name) {
        return after["counts"].value(name, uint64_t{0}) - before["counts"].value(name, uint64_t{0});
      };
      if (std::string(early) == "on") {
        CHECK(delta("early_prefill_started") == 1);
        CHECK(delta("early_prefill_outcome_done") == 1);
        if (exact)
          CHECK(delta("early_prefill_tokens") > 100);   // everything after the edit on line 2
        else
          CHECK((delta("early_prefill_tokens") > 0 && delta("early_prefill_tokens") < 8));  // the edit and the last token
        CHECK(delta("prefilled_tokens") == 0);        // the request: its prompt and logits are cached
      } else {
        CHECK(delta("early_prefill_started") == 0);
        if (exact)
          CHECK(delta("prefilled_tokens") > 100);
        else
          CHECK((delta("prefilled_tokens") > 0 && delta("prefilled_tokens") < 8));
      }
      CHECK(c.shutdown_and_exit() == 0);
    }
}

TEST_CASE("real engine: the log says which kernels and KV cache the model runs with", "[integration][engine]") {
  TempDir dir;
  wafer::SyntheticModelSpec spec;
  spec.head_dim = 32;
  REQUIRE(wafer::write_synthetic_model(spec, dir / "tiny.gguf"));
  LspClient c({"--model", (dir / "tiny.gguf").string(), "--threads", "1", "--kv-type", "q8_0", "--context", "512"});
  c.initialize();
  const auto logged = [&](const std::string& what) -> std::string {  // the next log line containing `what`
    auto m = c.wait_for([&](const json& m) {
      return m.value("method", "") == "window/logMessage" &&
             m["params"]["message"].get<std::string>().find(what) != std::string::npos;
    });
    return m ? (*m)["params"]["message"].get<std::string>() : "";
  };
  // Logged in this order after the load.
  const std::string kernels = logged("kernels "), kv = logged("KV cache");
  INFO(kernels << " / " << kv);
  CHECK(kernels.find(", 1 thread") != std::string::npos);
  CHECK(kv.find("KV cache q8_0: up to 4 sessions of 512 tokens, ") != std::string::npos);
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("real engine: --mlock on reports where the weights are", "[integration][engine]") {
  TempDir dir;
  wafer::SyntheticModelSpec spec;
  spec.architecture = "qwen2";
  REQUIRE(wafer::write_synthetic_model(spec, dir / "tiny.gguf"));
  LspClient c({"--model", (dir / "tiny.gguf").string(), "--threads", "1", "--mlock", "on"});
  c.initialize();
  auto note = c.wait_for([](const json& m) {
    return m.value("method", "") == "window/logMessage" &&
           m["params"]["message"].get<std::string>().find("weights in RAM") != std::string::npos;
  });
  REQUIRE(note);
  const std::string message = (*note)["params"]["message"];
  INFO(message);
  // Locked, or (an unprivileged run under a small limit) refused with the limit named.
  CHECK((message.find("locked ") != std::string::npos || message.find("RLIMIT_MEMLOCK") != std::string::npos));
  CHECK(c.shutdown_and_exit() == 0);
}
