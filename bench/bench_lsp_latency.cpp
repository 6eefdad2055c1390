// Measures what the daemon itself costs per completion, with the scripted fake engine
// (zero engine time) so that only transport, JSON-RPC, documents, scheduler and the
// engine-thread hand-off remain:
//   bench_lsp_latency [N] [DEBOUNCE_MS]
// prints client-side round-trip percentiles for invoked requests (no debounce) and for
// automatic ones (debounce DEBOUNCE_MS), plus the daemon's own wafer/stats stages. A reply
// without suggestions ends it with exit code 1 and no figures: they would be of fewer
// requests than asked for.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/lsp_client.h"

using namespace wafer::test;
using Clock = std::chrono::steady_clock;

namespace {

double pct(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

void report(const char* what, const std::vector<double>& ms) {
  std::printf("%-34s n=%zu  p50 %.3f  p90 %.3f  p99 %.3f  max %.3f ms\n", what, ms.size(), pct(ms, 0.5), pct(ms, 0.9),
              pct(ms, 0.99), pct(ms, 1.0));
}

}  // namespace

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 200;
  int debounce = argc > 2 ? std::atoi(argv[2]) : 20;
  TempDir dir;
  write_file(dir / "fake.json", R"js({"text": "return fib(n - 1) + fib(n - 2)", "chunk_bytes": 4})js");
  LspClient c({"--fake-engine", (dir / "fake.json").string(), "--debounce-ms", std::to_string(debounce)});
  c.initialize();
  c.wait_for([](const json& m) { return m.value("method", "") == "window/logMessage"; });
  std::string text;
  for (int i = 0; i < 300; ++i) text += "def f" + std::to_string(i) + "(x):\n    return x + " + std::to_string(i) + "\n";
  text += "def fib(n):\n    return \n";
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", "file:///b.py"}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  json pos = {{"line", 601}, {"character", 11}};
  int version = 1;
  // The round trips of `count` requests, or nothing when a reply has no suggestion.
  auto run = [&](int trigger, int count) -> std::optional<std::vector<double>> {
    std::vector<double> ms;
    for (int i = 0; i < count; ++i) {
      auto t0 = Clock::now();
      if (trigger == 2)  // a keystroke (on line 0) right before an automatic request
        c.notify("textDocument/didChange",
                 {{"textDocument", {{"uri", "file:///b.py"}, {"version", ++version}}},
                  {"contentChanges", {{{"range", {{"start", {{"line", 0}, {"character", 4}}}, {"end", {{"line", 0}, {"character", 4}}}}},
                                       {"text", "x"}}}}});
      json r = c.request("textDocument/inlineCompletion",
                         {{"textDocument", {{"uri", "file:///b.py"}}}, {"position", pos}, {"context", {{"triggerKind", trigger}}}});
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      if (!r.contains("result") || r["result"]["items"].empty()) {
        std::fprintf(stderr, "bench_lsp_latency: unexpected reply to request %d of %d: %s\n", i + 1, count, r.dump().c_str());
        return std::nullopt;
      }
    }
    return ms;
  };
  const std::optional<std::vector<double>> warm = run(1, 20);
  const std::optional<std::vector<double>> invoked = warm ? run(1, n) : std::nullopt;
  const std::optional<std::vector<double>> automatic = invoked ? run(2, std::max(1, n / 4)) : std::nullopt;
  if (!automatic) {
    c.shutdown_and_exit();
    return 1;
  }
  std::vector<double> over;
  for (double v : *automatic) over.push_back(v - debounce);
  std::printf("wafer lsp with the fake engine (0 ms engine), %d-line document, debounce %d ms\n", 602, debounce);
  report("invoked round trip", *invoked);
  report("automatic round trip", *automatic);
  report("automatic round trip - debounce", over);
  json stats = c.request("wafer/stats", nullptr)["result"]["latency_ms"];
  for (const char* stage : {"overhead_ms", "queue_ms", "engine_ms", "debounce_ms", "total_ms", "did_change_ms"})
    if (stats.contains(stage))
      std::printf("daemon %-16s p50 %.3f  p90 %.3f  p99 %.3f  max %.3f ms\n", stage, stats[stage]["p50"].get<double>(),
                  stats[stage]["p90"].get<double>(), stats[stage]["p99"].get<double>(), stats[stage]["max"].get<double>());
  return c.shutdown_and_exit() == 0 ? 0 : 1;
}
