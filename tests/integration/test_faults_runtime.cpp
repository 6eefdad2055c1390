// Fault tests of the real `wafer lsp` while it runs: the model file replaced by another
// valid model, a client that sends enormous documents, SIGTERM in the middle of a prefill.
// Each ends with the daemon answering correctly or exiting cleanly, with a log line.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/support/fixtures/synthetic_model.h"
#include "tests/support/lsp_client.h"

using namespace wafer::test;
namespace fs = std::filesystem;

namespace {

const char* kUri = "file:///work/f.py";

json open_params(const std::string& text) {
  return {{"textDocument", {{"uri", kUri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}};
}

json inline_params(int line, int character) { return inline_completion_params(kUri, line, character, 1); }

bool is_model_loaded(const json& m) {
  return m.value("method", "") == "window/logMessage" &&
         m["params"]["message"].get<std::string>().find("model loaded") != std::string::npos;
}

fs::path bundled_model() { return fs::path(__FILE__).parent_path() / ".." / ".." / "models" / "wafer-tiny-code-q8_0.gguf"; }

// The suggestion texts of an inlineCompletion reply.
std::vector<std::string> suggestions(const json& reply) {
  std::vector<std::string> out;
  for (const json& item : reply["result"]["items"]) out.push_back(item["insertText"].get<std::string>());
  return out;
}

// The suggestions a fresh daemon on `model` gives at (line, character) of `text`.
std::vector<std::string> fresh_answer(const fs::path& model, const std::string& text, int line, int character) {
  LspClient c({"--model", model.string(), "--threads", "1", "--debounce-ms", "0"});
  c.initialize();
  REQUIRE(c.wait_for(is_model_loaded, 30000));
  c.notify("textDocument/didOpen", open_params(text));
  json r = c.request("textDocument/inlineCompletion", inline_params(line, character), 30000);
  REQUIRE(r.contains("result"));
  CHECK(c.shutdown_and_exit() == 0);
  return suggestions(r);
}

// Resident memory of a process, in MiB.
double rss_mib(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") {
      double kib = 0;
      status >> kib;
      return kib / 1024;
    }
    status.ignore(1 << 20, '\n');
  }
  return -1;
}

}  // namespace

TEST_CASE("faults: the model file replaced by another valid model while the daemon runs", "[integration]") {
  TempDir dir;
  const fs::path model = dir / "model.gguf", other = dir / "other.gguf";
  fs::copy_file(bundled_model(), model);
  wafer::SyntheticModelSpec spec;
  spec.n_vocab = 600;
  spec.word_fillers = true;  // a model that writes visible text, different from the bundled one's
  REQUIRE(wafer::write_synthetic_model(spec, other));
  const std::string text = "def add(a, b):\n    return \n\nclass Point:\n    def __init__(self):\n        self.x = \n";
  const auto old_answer = fresh_answer(model, text, 5, 17);
  const auto new_answer = fresh_answer(other, text, 5, 17);
  REQUIRE(old_answer != new_answer);  // otherwise the test could not tell them apart

  LspClient c({"--model", model.string(), "--threads", "1", "--debounce-ms", "0"});
  c.initialize();
  REQUIRE(c.wait_for(is_model_loaded, 30000));
  c.notify("textDocument/didOpen", open_params(text));
  REQUIRE(c.request("textDocument/inlineCompletion", inline_params(1, 11), 30000).contains("result"));
  // As a package manager or `cp other model.tmp && mv` updates a file: a new inode.
  fs::rename(dir / "other.gguf", model);
  json r = c.request("textDocument/inlineCompletion", inline_params(5, 17), 30000);
  INFO(r.dump() + "\n" + c.process().stderr_text());
  REQUIRE(r.contains("result"));
  // The answer of the model still mapped, or of the new one after a clean reload: never a mix.
  const auto got = suggestions(r);
  CHECK((got == old_answer || got == new_answer));
  json again = c.request("textDocument/inlineCompletion", inline_params(1, 11), 30000);
  CHECK(again.contains("result"));
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("faults: 10 MB documents in a loop: memory stays bounded, the daemon keeps answering", "[integration]") {
  TempDir dir;
  write_file(dir / "fake.json", json({{"text", "value"}, {"chunk_bytes", 5}}).dump());
  LspClient c({"--fake-engine", (dir / "fake.json").string(), "--debounce-ms", "0"});
  c.initialize();
  REQUIRE(c.wait_for(is_model_loaded));
  c.notify("textDocument/didOpen", open_params("x = 1\n"));
  // 10 MB of Python, a little different each time (so nothing can be shared between them).
  auto big = [](int round) {
    std::string line = "def f" + std::to_string(round) + "(a, b):\n    return a + b  # " + std::string(40, 'a' + round % 26) + "\n";
    std::string s;
    s.reserve(10 << 20);
    while (s.size() + line.size() < (10u << 20)) s += line;
    return s;
  };
  const int rounds = 16;
  double rss_after_warmup = 0, rss_peak = 0;
  for (int i = 0; i < rounds; ++i) {
    c.notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", i + 2}}},
                                        {"contentChanges", {{{"text", big(i)}}}}});
    // A request now and then, as an editor asks while the user types; once it is
    // answered, every change before it has been read and applied.
    if (i % 4 == 3) {
      json r = c.request("textDocument/inlineCompletion", inline_params(0, 0), 60000);
      REQUIRE(r.contains("result"));
      const double rss = rss_mib(c.process().pid());
      if (i == 3) rss_after_warmup = rss;
      rss_peak = std::max(rss_peak, rss);
    }
  }
  // Answered after the loop, at the end of the last document.
  c.notify("textDocument/didChange",
           {{"textDocument", {{"uri", kUri}, {"version", rounds + 2}}}, {"contentChanges", {{{"text", "y = \n"}}}}});
  json r = c.request("textDocument/inlineCompletion", inline_params(0, 4), 60000);
  INFO(r.dump() + "\n" + c.process().stderr_text());
  REQUIRE(r.contains("result"));
  CHECK(suggestions(r) == std::vector<std::string>{"value"});
  // 160 MB went through; what stays is about one document and its syntax tree. Growth
  // after the fourth round would be documents (or trees) kept.
  INFO("RSS after round 4: " << rss_after_warmup << " MiB, peak: " << rss_peak << " MiB");
  CHECK(rss_peak - rss_after_warmup < 60);
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("faults: SIGTERM during a prefill: clean exit, a log line, no files left behind", "[integration]") {
  TempDir dir;
  // A model big enough that prefilling a long prompt takes seconds.
  wafer::SyntheticModelSpec spec;
  spec.n_embd = 512;
  spec.n_head = 8;
  spec.n_head_kv = 8;
  spec.n_layer = 8;
  spec.n_ff = 2048;
  spec.context_length = 4096;
  REQUIRE(wafer::write_synthetic_model(spec, dir / "model.gguf"));
  const fs::path log = dir / "wafer.log";
  std::string text;
  for (int i = 0; i < 400; ++i) text += "value_" + std::to_string(i) + " = compute(" + std::to_string(i) + ")\n";
  LspClient c({"--model", (dir / "model.gguf").string(), "--threads", "1", "--debounce-ms", "0", "--log-file",
               log.string(), "--prefix-tokens", "3000", "--prefix-lines", "400", "--context", "4096"});
  c.initialize();
  REQUIRE(c.wait_for(is_model_loaded, 60000));
  c.notify("textDocument/didOpen", open_params(text));
  const int64_t id = c.send_request("textDocument/inlineCompletion", inline_params(400, 0));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const bool answered_before = c.wait_for_response(id, 0).has_value();
  REQUIRE(::kill(c.process().pid(), SIGTERM) == 0);
  const int code = c.process().wait(10000);
  INFO(c.process().stderr_text());
  if (answered_before) WARN("the prefill ended before SIGTERM: this machine is faster than the test assumes");
  CHECK(code == 128 + SIGTERM);
  // The log says why it stopped, and ends with a whole line.
  const std::string logged = read_file(log);
  CHECK_THAT(logged, Catch::Contains("SIGTERM"));
  CHECK((!logged.empty() && logged.back() == '\n'));
  // Nothing but the model and the log in the folder.
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir.path())) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"model.gguf", "wafer.log"});
}
