// Fault tests of the real `wafer lsp`: what happens when the world misbehaves around the
// daemon. Each case ends with the daemon alive and answering (or exiting cleanly where the
// protocol says it must) and a clear line in its log. (Input closed in the middle of a
// message is the transcript tests/integration/transcripts/stdin_closed_mid_message.lsp.)
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>

#include "tests/support/fixtures/synthetic_model.h"
#include "tests/support/lsp_client.h"
#include "tests/support/testing.h"

using namespace wafer::test;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

const char* kUri = "file:///work/f.py";

std::string write_script(const TempDir& dir, const json& script) {
  auto path = dir / "fake.json";
  write_file(path, script.dump());
  return path.string();
}

json open_params(const std::string& text) {
  return {{"textDocument", {{"uri", kUri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}};
}

json inline_params(int line, int character, json token = nullptr) {
  return inline_completion_params(kUri, line, character, 1, std::move(token));
}

bool is_model_loaded(const json& m) {
  return m.value("method", "") == "window/logMessage" &&
         m["params"]["message"].get<std::string>().find("model loaded") != std::string::npos;
}

bool is_show_message(const json& m) { return m.value("method", "") == "window/showMessage"; }

fs::path bundled_model() { return fs::path(__FILE__).parent_path() / ".." / ".." / "models" / "wafer-tiny-code-q8_0.gguf"; }

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

}  // namespace

TEST_CASE("faults: a client that stops reading mid-stream (EPIPE) ends the session with a log line", "[integration]") {
  TempDir dir;
  std::string script = write_script(dir, {{"text", std::string(400, 'x')}, {"chunk_bytes", 1}, {"token_ms", 5}});
  LspClient c({"--fake-engine", script, "--debounce-ms", "0"});
  c.initialize();
  REQUIRE(c.wait_for(is_model_loaded));
  c.notify("textDocument/didOpen", open_params("x = \n"));
  c.send_request("textDocument/inlineCompletion", inline_params(0, 4, "stream"));
  REQUIRE(c.wait_for([](const json& m) { return m.value("method", "") == "$/progress"; }));
  c.process().close_stdout();  // the daemon's next $/progress write fails with EPIPE
  CHECK(c.process().wait(10000) == 1);  // like the end of input without shutdown
  CHECK_THAT(c.process().stderr_text(), Catch::Contains("the client stopped reading: write error: broken pipe"));
}

TEST_CASE("faults: an engine error in the middle of a streamed completion", "[integration]") {
  TempDir dir;
  std::string script = write_script(dir, {{"text", "abcdefgh"}, {"chunk_bytes", 2}, {"token_ms", 5},
                                          {"fail", "simulated engine failure"}, {"fail_after_chunks", 2}});
  LspClient c({"--fake-engine", script, "--debounce-ms", "0"});
  c.initialize();
  REQUIRE(c.wait_for(is_model_loaded));
  c.notify("textDocument/didOpen", open_params("x = \ny = \n"));
  int64_t id = c.send_request("textDocument/inlineCompletion", inline_params(0, 4, "t"));
  auto r = c.wait_for_response(id);
  REQUIRE(r);
  INFO(r->dump());
  CHECK((*r)["result"]["items"].empty());  // no half suggestion from a failed run
  bool streamed = false;
  for (const json& m : c.received()) streamed |= m.value("method", "") == "$/progress";
  CHECK(streamed);
  // The daemon keeps serving.
  json again = c.request("textDocument/inlineCompletion", inline_params(1, 4));
  CHECK(again["result"]["items"].empty());
  json stats = c.request("wafer/stats", nullptr);
  CHECK(stats["result"]["counts"]["outcome_error"] == 2);
  CHECK(c.shutdown_and_exit() == 0);
  CHECK_THAT(c.process().stderr_text(), Catch::Contains("completion failed: simulated engine failure"));
}

TEST_CASE("faults: the model file deleted or truncated while the daemon runs", "[integration]") {
  TempDir dir;
  fs::path model = dir / "model.gguf";
  fs::copy_file(bundled_model(), model);
  const std::string text = "def add(a, b):\n    return \n\nclass Point:\n    def __init__(self):\n        self.x = \n";

  SECTION("deleted: the mapping keeps the model working") {
    LspClient c({"--model", model.string(), "--threads", "1", "--debounce-ms", "0"});
    c.initialize();
    REQUIRE(c.wait_for(is_model_loaded, 30000));
    c.notify("textDocument/didOpen", open_params(text));
    REQUIRE(c.request("textDocument/inlineCompletion", inline_params(1, 11)).contains("result"));
    fs::remove(model);
    json r = c.request("textDocument/inlineCompletion", inline_params(5, 17), 30000);
    CHECK(r.contains("result"));
    CHECK(c.shutdown_and_exit() == 0);
  }
  SECTION("truncated: no SIGBUS; the answer is dropped, the reload fails with a message") {
    LspClient c({"--model", model.string(), "--threads", "1", "--debounce-ms", "0"});
    c.initialize();
    REQUIRE(c.wait_for(is_model_loaded, 30000));
    c.notify("textDocument/didOpen", open_params(text));
    REQUIRE(c.request("textDocument/inlineCompletion", inline_params(1, 11)).contains("result"));
    std::error_code refused;
    fs::resize_file(model, 1000, refused);  // e.g. an interrupted copy over the file
    if (refused) {
      // Windows refuses to truncate a file another process has mapped: nothing can go wrong.
      json r = c.request("textDocument/inlineCompletion", inline_params(5, 17), 30000);
      CHECK(r.contains("result"));
      CHECK(c.shutdown_and_exit() == 0);
      return;
    }
    json r = c.request("textDocument/inlineCompletion", inline_params(5, 17), 30000);
    INFO(r.dump() + "\n" + c.process().stderr_text());
    REQUIRE(r.contains("result"));
    CHECK(r["result"]["items"].empty());
    auto shown = c.wait_for(is_show_message, 30000);
    REQUIRE(shown);
    CHECK_THAT((*shown)["params"]["message"].get<std::string>(), Catch::Contains("cannot use the model"));
    json after = c.request("textDocument/inlineCompletion", inline_params(1, 11));
    CHECK(after["result"]["items"].empty());
    CHECK(c.shutdown_and_exit() == 0);
    CHECK_THAT(c.process().stderr_text(), Catch::Contains("the model file changed on disk while in use"));
  }
}

TEST_CASE("faults: no memory for the KV cache of a large context is a message, not a crash", "[integration]") {
  // ASan reserves terabytes of address space for its shadow memory at start-up, so a daemon
  // under an address-space limit cannot start at all.
  if (kAddressSanitizer) skip_test("under AddressSanitizer no address-space limit can be set (ulimit -v)");
  TempDir dir;
  wafer::SyntheticModelSpec spec;
  spec.n_layer = 8;
  spec.context_length = 1u << 20;  // 8 layers x 2 heads x 32 floats x 2 x 1M tokens = 2 GiB of KV cache
  REQUIRE(wafer::write_synthetic_model(spec, dir / "big-context.gguf"));
  // 1 GiB of address space for the daemon: enough for everything but that cache.
  Subprocess daemon({"/bin/sh", "-c", "ulimit -v 1048576 && exec \"$0\" lsp --threads 1 --context 1048576 --model \"$1\"",
                     wafer_binary().string(), (dir / "big-context.gguf").string()});
  auto frame = [](const json& m) {
    std::string body = m.dump();
    return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  };
  daemon.write(frame({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", {{"capabilities", json::object()}}}}) +
               frame({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", json::object()}}) +
               frame({{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"}, {"params", open_params("x = \n")}}) +
               frame({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "textDocument/inlineCompletion"}, {"params", inline_params(0, 4)}}));
  std::string out;
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (out.find("\"id\":2") == std::string::npos && Clock::now() < deadline)
    if (auto bytes = daemon.read_some(100)) out += *bytes;
    else break;
  INFO(out + "\n" + daemon.stderr_text());
  CHECK_THAT(out, Catch::Contains("out of memory"));
  CHECK_THAT(out, Catch::Contains("\"id\":2,\"jsonrpc\":\"2.0\",\"result\""));
  daemon.write(frame({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "shutdown"}}) + frame({{"jsonrpc", "2.0"}, {"method", "exit"}}));
  CHECK(daemon.wait(10000) == 0);
}

TEST_CASE("faults: requests faster than they can be answered: stale work is dropped, not queued", "[integration]") {
  TempDir dir;
  // Each completion takes ~200 ms of engine time; 300 keystrokes arrive in a burst.
  std::string script = write_script(dir, {{"text", std::string(40, 'z')}, {"chunk_bytes", 2}, {"token_ms", 10}});
  LspClient c({"--fake-engine", script, "--debounce-ms", "0"});
  c.initialize();
  REQUIRE(c.wait_for(is_model_loaded));
  c.notify("textDocument/didOpen", open_params("\n"));
  std::vector<int64_t> ids;
  for (int i = 0; i < 300; ++i) {
    c.notify("textDocument/didChange",
             {{"textDocument", {{"uri", kUri}, {"version", i + 2}}},
              {"contentChanges", {{{"range", {{"start", {{"line", 0}, {"character", i}}}, {"end", {{"line", 0}, {"character", i}}}}},
                                   {"text", "a"}}}}});
    ids.push_back(c.send_request("textDocument/inlineCompletion", inline_params(0, i + 1)));
  }
  auto sent = Clock::now();
  std::map<int64_t, int> replies;
  while (replies.size() < ids.size()) {
    auto m = c.next(10000);
    REQUIRE(m);
    if (m->contains("id") && !m->contains("method")) ++replies[(*m)["id"].get<int64_t>()];
  }
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - sent).count();
  for (int64_t id : ids) CHECK(replies[id] == 1);
  CHECK(ms < 3000);  // 300 queued runs would take a minute
  json stats = c.request("wafer/stats", nullptr);
  CHECK(stats["result"]["counts"]["outcome_superseded"].get<int>() >= 290);
  CHECK(c.shutdown_and_exit() == 0);
}
