// Soak test of the real daemon with a real (small) model: thousands of didChange +
// inlineCompletion across several documents, first at typing speed, then as a flood (as
// fast as the pipe takes them). It checks the daemon's promises and prints the figures:
//   - every request gets exactly one reply, and streamed $/progress for a request never
//     comes after its reply; the harness never cancels, so no reply is RequestCancelled
//     (a request replaced by a newer one is answered with an empty result marked
//     superseded);
//   - replies that overtake an older request of the same document are counted (JSON-RPC
//     allows any order; a typing-through answer may overtake a superseded engine run that
//     is still stopping), not failed;
//   - resident memory stays flat while typing: RSS sampled every 50 requests, slope by
//     least squares over the second half of each phase (KiB per 1000 requests), checked for
//     the typing phase when it has at least --min-slope-requests requests (else it prints
//     that it was not checked). The flood's slope is printed, not checked: a flood is over
//     in seconds, and its few RSS samples swing by more than a slope worth checking;
//   - the model completes: at least --min-non-empty (a fraction) of the typing phase's
//     requests get a suggestion, so a daemon answering everything empty fails;
//   - documents come and go as in an editor: each document typed out is started afresh,
//     closed and reopened, or closed and replaced by a new one (a new URI), in turn;
//   - latency stays bounded under the flood (stale work is dropped, not queued): p99 of
//     request -> reply.
// Usage: bench_soak [--model PATH] [--docs N] [--typing N] [--typing-ms MS] [--flood N]
//                   [--max-p99-ms MS] [--max-slope-kib N] [--min-slope-requests N]
//                   [--min-non-empty FRACTION] [--lsp-arg ARG]...
// --lsp-arg adds ARG to the daemon's command line (once per argument), e.g.
// `--lsp-arg --chunk-reuse --lsp-arg 32`.
// Exit code 0 when every check passed, 1 otherwise. scripts/test.sh runs it briefly (the
// "soak" phase of CI); on demand it runs for as long as you like.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/lsp_client.h"

using namespace wafer::test;
using Clock = std::chrono::steady_clock;

namespace {

struct Config {
  std::string model = WAFER_SOURCE_DIR "/models/wafer-tiny-code-q8_0.gguf";
  int docs = 4;
  int typing = 300;     // requests at typing speed
  int typing_ms = 100;  // between keystrokes (about 10 characters a second)
  int flood = 3000;     // requests as fast as possible
  double max_p99_ms = 2000;
  double max_slope_kib = 256;  // per 1000 requests
  int min_slope_requests = 1000;  // a shorter typing phase is too short for a slope to mean much
  double min_non_empty = 0.5;     // of the typing phase's requests
  std::vector<std::string> lsp_args;
};

double pct(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5))];
}

long rss_kib(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  long value = -1;
  while (f >> key) {
    if (key == "VmRSS:") {
      f >> value;
      break;
    }
    std::getline(f, key);
  }
  return value;
}

// Least-squares slope of y over x.
double slope(const std::vector<std::pair<double, double>>& pts) {
  double n = static_cast<double>(pts.size()), sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (auto [x, y] : pts) sx += x, sy += y, sxx += x * x, sxy += x * y;
  double d = n * sxx - sx * sx;
  return d == 0 ? 0 : (n * sxy - sx * sy) / d;
}

const char* kSnippet =
    "def total(items):\n    s = 0\n    for x in items:\n        s += x\n    return s\n\n"
    "class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, x):\n"
    "        self.items.append(x)\n\n";

class Soak {
 public:
  Soak(const Config& cfg, LspClient& c) : cfg_(cfg), c_(c) {
    for (int d = 0; d < cfg.docs; ++d) {
      Doc doc;
      doc.index = d;
      doc.uri = uri_of(doc);
      docs_.push_back(doc);
      open(doc);
    }
  }

  struct Phase {
    std::string name;
    int requests = 0, results = 0, non_empty = 0, superseded = 0, errors = 0, overtaken = 0;
    std::vector<double> latency_ms, result_latency_ms;
    long rss_start = 0, rss_end = 0;
    double slope_kib = 0;
  };

  // Sends `count` keystrokes, each a didChange + inlineCompletion; gap_ms between them
  // (0: flood, draining replies only every few requests).
  Phase run(const std::string& name, int count, int gap_ms) {
    Phase ph;
    ph.name = name;
    phase_ = &ph;
    std::vector<std::pair<double, double>> samples;
    ph.rss_start = rss_kib(c_.process().pid());
    for (int i = 0; i < count; ++i) {
      auto t0 = Clock::now();
      // Stay on one document for a while, as a person does, then move to the next.
      Doc& doc = docs_[static_cast<size_t>((i / 25) % static_cast<int>(docs_.size()))];
      keystroke(doc, i);
      ++ph.requests;
      if (i % 50 == 0) samples.emplace_back(i, static_cast<double>(rss_kib(c_.process().pid())));
      if (gap_ms > 0) {
        auto until = t0 + std::chrono::milliseconds(gap_ms);
        while (Clock::now() < until) drain(2);
      } else if (i % 8 == 7) {
        drain(2);
      }
    }
    // Everything still open must be answered.
    auto deadline = Clock::now() + std::chrono::seconds(60);
    while (!pending_.empty() && Clock::now() < deadline) drain(50);
    for (const auto& [id, p] : pending_) problem("request " + std::to_string(id) + " never got a reply");
    pending_.clear();
    ph.rss_end = rss_kib(c_.process().pid());
    samples.emplace_back(count, static_cast<double>(ph.rss_end));
    std::vector<std::pair<double, double>> tail(samples.begin() + static_cast<long>(samples.size() / 2), samples.end());
    ph.slope_kib = slope(tail) * 1000;
    phase_ = nullptr;
    return ph;
  }

  const std::vector<std::string>& problems() const { return problems_; }

 private:
  struct Doc {
    std::string uri;
    int index = 0;       // which of the --docs documents
    int generation = 0;  // bumped when the document is replaced by a new one
    int restarts = 0;    // times the snippet was typed out
    int version = 1;
    int line = 0, character = 0;  // the cursor (utf-16 = bytes: the snippet is ASCII)
    size_t pos = 0;               // next snippet character to type
  };
  struct Pending {
    Clock::time_point sent;
    size_t doc;
    std::string token;
  };

  static std::string uri_of(const Doc& doc) {
    return "file:///soak/doc" + std::to_string(doc.index) + (doc.generation ? "-" + std::to_string(doc.generation) : "") +
           ".py";
  }
  void open(Doc& doc) {
    doc.version = 1;
    c_.notify("textDocument/didOpen",
              {{"textDocument", {{"uri", doc.uri}, {"languageId", "python"}, {"version", doc.version}, {"text", ""}}}});
  }

  void keystroke(Doc& doc, int i) {
    const size_t len = std::char_traits<char>::length(kSnippet);
    if (doc.pos > 0 && doc.pos % len == 0) {
      // The snippet is typed out: start the document afresh, so its size stays bounded and
      // RSS growth means a leak, not a bigger document. In turn: a full-text change; close
      // and reopen; close and open another document in its place.
      switch (doc.restarts++ % 3) {
        case 0:
          c_.notify("textDocument/didChange", {{"textDocument", {{"uri", doc.uri}, {"version", ++doc.version}}},
                                               {"contentChanges", {{{"text", ""}}}}});
          break;
        case 1:
          c_.notify("textDocument/didClose", {{"textDocument", {{"uri", doc.uri}}}});
          open(doc);
          break;
        default:
          c_.notify("textDocument/didClose", {{"textDocument", {{"uri", doc.uri}}}});
          ++doc.generation;
          doc.uri = uri_of(doc);
          open(doc);
          break;
      }
      doc.line = doc.character = 0;
    }
    char ch = kSnippet[doc.pos++ % len];
    json range = {{"start", {{"line", doc.line}, {"character", doc.character}}},
                  {"end", {{"line", doc.line}, {"character", doc.character}}}};
    c_.notify("textDocument/didChange", {{"textDocument", {{"uri", doc.uri}, {"version", ++doc.version}}},
                                         {"contentChanges", {{{"range", range}, {"text", std::string(1, ch)}}}}});
    if (ch == '\n') ++doc.line, doc.character = 0;
    else ++doc.character;
    json params = {{"textDocument", {{"uri", doc.uri}}},
                   {"position", {{"line", doc.line}, {"character", doc.character}}},
                   {"context", {{"triggerKind", 2}}}};
    std::string token;
    if (i % 2 == 0) params["partialResultToken"] = token = "soak-" + std::to_string(i);
    int64_t id = c_.send_request("textDocument/inlineCompletion", params);
    size_t d = static_cast<size_t>(&doc - docs_.data());
    pending_[id] = {Clock::now(), d, token};
    if (!token.empty()) token_owner_[token] = id;
  }

  // Reads what the daemon sent: waits up to timeout_ms for the first message, then takes
  // whatever else is already there. (LspClient::next needs >= 2 ms to read at all.)
  void drain(int timeout_ms) {
    for (std::optional<json> m = c_.next(timeout_ms); m; m = c_.next(2)) handle(*m);
  }

  void handle(const json& m) {
    if (m.value("method", "") == "$/progress" && m["params"]["token"].is_string()) {
      std::string token = m["params"]["token"];
      auto owner = token_owner_.find(token);
      if (owner != token_owner_.end() && answered_.count(owner->second))
        problem("progress for " + token + " after its request's reply");
      return;
    }
    if (m.contains("method") || !m.contains("id") || !m["id"].is_number_integer()) return;
    int64_t id = m["id"];
    if (!answered_.insert(id).second) {
      problem("a second reply to request " + std::to_string(id));
      return;
    }
    auto it = pending_.find(id);
    if (it == pending_.end()) return;  // a request of the harness itself (wafer/stats)
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - it->second.sent).count();
    int64_t& last = last_reply_[it->second.doc];
    if (id < last && phase_) ++phase_->overtaken;
    last = std::max(last, id);
    if (phase_) {
      phase_->latency_ms.push_back(ms);
      const json* wafer = m.contains("result") && m["result"].is_object() && m["result"].contains("wafer")
                              ? &m["result"]["wafer"]
                              : nullptr;
      if (wafer && wafer->is_object() && wafer->value("outcome", "") == "superseded") {
        ++phase_->superseded;
        if (!m["result"]["items"].empty()) problem("a superseded request answered with items: " + m.dump());
      } else if (m.contains("result")) {
        ++phase_->results;
        phase_->result_latency_ms.push_back(ms);
        if (!m["result"]["items"].empty()) ++phase_->non_empty;
      } else {
        ++phase_->errors;
        problem("error reply: " + m.dump());
      }
    }
    if (!it->second.token.empty()) token_owner_.erase(it->second.token);
    pending_.erase(it);
  }

  void problem(const std::string& p) {
    if (problems_.size() < 20) std::fprintf(stderr, "soak: %s\n", p.c_str());
    problems_.push_back(p);
  }

  const Config& cfg_;
  LspClient& c_;
  std::vector<Doc> docs_;
  std::map<int64_t, Pending> pending_;
  std::map<std::string, int64_t> token_owner_;
  std::set<int64_t> answered_;
  std::map<size_t, int64_t> last_reply_;
  Phase* phase_ = nullptr;
  std::vector<std::string> problems_;
};

void print(const Soak::Phase& p) {
  std::printf("%-7s requests %5d  results %5d (non-empty %5d)  superseded %5d  errors %d  overtaken %d\n",
              p.name.c_str(), p.requests, p.results, p.non_empty, p.superseded, p.errors, p.overtaken);
  std::printf("        latency request->reply p50 %.1f  p99 %.1f  max %.1f ms; answered with a result p50 %.1f  p99 %.1f ms\n",
              pct(p.latency_ms, 0.5), pct(p.latency_ms, 0.99), pct(p.latency_ms, 1.0), pct(p.result_latency_ms, 0.5),
              pct(p.result_latency_ms, 0.99));
  std::printf("        RSS %ld -> %ld KiB, slope %.1f KiB per 1000 requests (second half)\n", p.rss_start, p.rss_end,
              p.slope_kib);
}

// The checks on the figures of both phases; each failed one as a sentence.
std::vector<std::string> judge(const Config& cfg, const Soak::Phase& typing, const Soak::Phase& flood) {
  std::vector<std::string> failed;
  if (pct(flood.latency_ms, 0.99) > cfg.max_p99_ms) failed.push_back("flood p99 above --max-p99-ms");
  if (typing.requests < cfg.min_slope_requests)
    std::printf("typing: RSS slope not checked: %d requests, fewer than --min-slope-requests %d\n", typing.requests,
                cfg.min_slope_requests);
  else if (typing.slope_kib > cfg.max_slope_kib)
    failed.push_back("typing: RSS slope above --max-slope-kib");
  if (typing.non_empty < cfg.min_non_empty * typing.requests) {
    char line[160];
    std::snprintf(line, sizeof line, "typing: %d of %d requests got a suggestion, fewer than --min-non-empty %g",
                  typing.non_empty, typing.requests, cfg.min_non_empty);
    failed.push_back(line);
  }
  return failed;
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--model") cfg.model = v;
    else if (k == "--docs") cfg.docs = std::max(1, std::atoi(v.c_str()));
    else if (k == "--typing") cfg.typing = std::atoi(v.c_str());
    else if (k == "--typing-ms") cfg.typing_ms = std::atoi(v.c_str());
    else if (k == "--flood") cfg.flood = std::atoi(v.c_str());
    else if (k == "--max-p99-ms") cfg.max_p99_ms = std::atof(v.c_str());
    else if (k == "--max-slope-kib") cfg.max_slope_kib = std::atof(v.c_str());
    else if (k == "--min-slope-requests") cfg.min_slope_requests = std::atoi(v.c_str());
    else if (k == "--min-non-empty") cfg.min_non_empty = std::atof(v.c_str());
    else if (k == "--lsp-arg") cfg.lsp_args.push_back(v);
    else {
      std::fprintf(stderr, "bench_soak: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  std::vector<std::string> lsp_args = {"--model", cfg.model, "--threads", "1"};
  lsp_args.insert(lsp_args.end(), cfg.lsp_args.begin(), cfg.lsp_args.end());
  LspClient c(lsp_args);
  json init = c.initialize();
  if (!init.contains("result")) {
    std::fprintf(stderr, "bench_soak: initialize failed: %s\n", init.dump().c_str());
    return 1;
  }
  auto loaded = c.wait_for([](const json& m) {
    return m.value("method", "") == "window/logMessage" &&
           m["params"]["message"].get<std::string>().find("model loaded") != std::string::npos;
  }, 60000);
  if (!loaded) {
    std::fprintf(stderr, "bench_soak: the model did not load: %s\n", c.process().stderr_text().c_str());
    return 1;
  }
  Soak soak(cfg, c);
  auto t0 = Clock::now();
  Soak::Phase typing = soak.run("typing", cfg.typing, cfg.typing_ms);
  Soak::Phase flood = soak.run("flood", cfg.flood, 0);
  double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  json stats = c.request("wafer/stats", nullptr, 30000);
  int exit_code = c.shutdown_and_exit(30000);

  std::printf("bench_soak: %s, %d documents, %.1f s\n", cfg.model.c_str(), cfg.docs, secs);
  print(typing);
  print(flood);
  if (stats.contains("result")) {
    std::printf("daemon outcomes: %s\n", stats["result"]["counts"].dump().c_str());
    if (stats["result"].contains("memory")) std::printf("daemon memory: %s\n", stats["result"]["memory"].dump().c_str());
  }
  std::vector<std::string> failed = soak.problems();
  for (std::string& f : judge(cfg, typing, flood)) failed.push_back(std::move(f));
  if (exit_code != 0) failed.push_back("shutdown + exit gave exit code " + std::to_string(exit_code));
  for (const std::string& f : failed) std::printf("FAILED: %s\n", f.c_str());
  std::printf("bench_soak: %s\n", failed.empty() ? "ok" : "FAILED");
  return failed.empty() ? 0 : 1;
}
