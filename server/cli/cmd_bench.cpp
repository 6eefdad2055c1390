// `wafer bench`: completion latency as an editor user feels it. `replay` drives an LSP
// server (wafer lsp by default, or any command after `--`), `infill` an HTTP endpoint
// (llama.cpp /infill or OpenAI-style /v1/completions); --target adds more targets run on
// the same trace, side by side. Summary on the terminal, JSON (--json, --out) and HTML
// (--html) reports.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/base/path_utf8.h"
#include "server/benchtool/bench_html.h"
#include "server/benchtool/bench_http.h"
#include "server/benchtool/bench_lsp.h"
#include "server/benchtool/bench_replay.h"
#include "server/cli/commands.h"
#include "server/platform/platform.h"

namespace wafer {
namespace {

using json = nlohmann::json;
using namespace wafer::bench;

int usage_error(const std::string& message) {
  std::fprintf(stderr, "wafer bench: %s (try 'wafer bench --help')\n", message.c_str());
  return kExitUsage;
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> words;
  std::istringstream in(s);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string self_binary() {
  const auto p = os::executable_path();
  return p.empty() ? "wafer" : utf8_from_path(p);
}

// `wafer lsp` with the bench's model and daemon options.
LspTargetOptions wafer_lsp(const Options& o) {
  LspTargetOptions t;
  t.argv = {self_binary(), "lsp"};
  std::string name = "wafer lsp";
  auto add = [&](const std::string& flag, const std::string& value) {
    t.argv.push_back(flag);
    t.argv.push_back(value);
  };
  if (!o.model.empty()) {
    add("--model", o.model);
    name += " --model " + utf8_from_path(path_from_utf8(o.model).filename());
  }
  if (!o.fake_engine.empty()) {
    add("--fake-engine", o.fake_engine);
    name += " --fake-engine";
  }
  if (o.backend != "local") {
    // The daemon in front of a remote server: the same trace, another backend. The API key
    // stays in the variable or file named; only their names go on the command line.
    add("--backend", o.backend);
    add("--backend-url", o.backend_url);
    if (!o.backend_model.empty()) add("--backend-model", o.backend_model);
    if (!o.api_key_env.empty()) add("--api-key-env", o.api_key_env);
    if (!o.api_key_file.empty()) add("--api-key-file", o.api_key_file);
    add("--backend-timeout-ms", std::to_string(o.backend_timeout_ms));
    if (!o.prompt_template.empty()) add("--fim-template", o.prompt_template);
    name += " --backend " + o.backend;
  }
  if (o.fim_format != "auto") add("--fim-format", o.fim_format);
  if (o.chunk_reuse != Options{}.chunk_reuse) add("--chunk-reuse", std::to_string(o.chunk_reuse));
  if (o.threads > 0) add("--threads", std::to_string(o.threads));
  if (!o.draft_model.empty()) add("--draft-model", o.draft_model);
  if (!o.token_healing) add("--token-healing", "off");
  if (!o.amx) add("--amx", "off");
  if (o.amx_bf16) add("--amx-bf16", "on");
  if (!o.early_prefill) add("--early-prefill", "off");
  if (o.latency_budget_ms != Options{}.latency_budget_ms) add("--latency-budget-ms", std::to_string(o.latency_budget_ms));
  if (o.typing_budget != Options{}.typing_budget) add("--typing-budget", o.typing_budget ? "on" : "off");
  if (o.min_confidence != Options{}.min_confidence) add("--min-confidence", std::to_string(o.min_confidence));
  add("--context", std::to_string(o.context));
  add("--kv-type", o.kv_type);
  add("--max-tokens", std::to_string(o.max_tokens));
  add("--debounce-ms", std::to_string(o.debounce_ms));
  add("--prefix-lines", std::to_string(o.prefix_lines));
  add("--suffix-lines", std::to_string(o.suffix_lines));
  t.name = name;
  t.stream = !o.no_stream;
  return t;
}

HttpTargetOptions http_target(const Options& o, const std::string& api, const std::string& url) {
  HttpTargetOptions h;
  h.url = url;
  h.api = api == "openai" ? HttpApi::kOpenAi : HttpApi::kLlamaCpp;
  h.model = o.api_model;
  h.prompt_template = o.prompt_template;
  h.max_tokens = o.max_tokens;
  h.stream = !o.no_stream;
  h.prefix_lines = o.prefix_lines;
  h.suffix_lines = o.suffix_lines;
  return h;
}

// A --target SPEC: wafer | lsp:COMMAND | llamacpp:URL | openai:URL.
Result<std::unique_ptr<BenchTarget>> target_from_spec(const Options& o, const std::string& spec) {
  if (spec == "wafer") return make_lsp_target(wafer_lsp(o));
  size_t colon = spec.find(':');
  std::string kind = spec.substr(0, colon), rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (kind == "lsp" && !split_words(rest).empty()) {
    LspTargetOptions t;
    t.argv = split_words(rest);
    t.stream = !o.no_stream;
    return make_lsp_target(t);
  }
  if ((kind == "llamacpp" || kind == "openai") && !rest.empty()) return make_http_target(http_target(o, kind, rest));
  return make_error("--target '" + spec + "': expected wafer, lsp:COMMAND, llamacpp:URL or openai:URL");
}

Result<std::string> read_whole(const std::string& path) {
  std::ifstream in(path_from_utf8(path), std::ios::binary);
  if (!in) return make_error("cannot read '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Status write_whole(const std::string& path, const std::string& text) {
  std::ofstream out(path_from_utf8(path), std::ios::binary);
  out << text;
  out.close();
  if (!out) return make_error("cannot write '" + path + "'");
  return {};
}

void draw_progress(const std::string& label, size_t done, size_t total) {
  const int width = 30;
  int filled = total ? static_cast<int>(width * done / total) : width;
  std::fprintf(stderr, "\r%s [%s%s] %zu/%zu keystrokes", label.c_str(), std::string(filled, '#').c_str(),
               std::string(width - filled, ' ').c_str(), done, total);
  if (done == total) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

}  // namespace

int run_bench(const Options& o) {
  const auto& pos = o.positional;
  const size_t own = o.positional_before_dashes >= 0 ? static_cast<size_t>(o.positional_before_dashes) : pos.size();
  if (own == 0) return usage_error("expected 'replay' or 'infill'");
  const std::string mode = pos[0];
  if (mode != "replay" && mode != "infill") return usage_error("unknown mode '" + mode + "'");
  if (own > 2) return usage_error("unexpected argument '" + pos[2] + "'");
  std::vector<std::string> server_cmd(pos.begin() + static_cast<std::ptrdiff_t>(own), pos.end());
  if (mode == "infill" && !server_cmd.empty()) return usage_error("infill takes no server command after '--'");

  // The trace.
  Result<Trace> trace = make_error("");
  if (!o.trace_file.empty()) {
    if (own > 1) return usage_error("give either SOURCE or --trace, not both");
    Result<std::string> text = read_whole(o.trace_file);
    if (!text) return usage_error(text.error().message);
    trace = parse_trace_jsonl(*text);
  } else {
    if (own < 2) return usage_error("expected a SOURCE file to type (or --trace FILE)");
    Result<std::string> text = read_whole(pos[1]);
    if (!text) return usage_error(text.error().message);
    TypingModel model;
    model.wpm = o.wpm;
    model.typo_rate = o.typo_rate;
    model.seed = o.seed;
    trace = synthesize_trace(pos[1], *text, o.keystrokes, o.start_line, model);
  }
  if (!trace) return usage_error(trace.error().message);
  if (!o.save_trace.empty())
    if (Status s = write_whole(o.save_trace, trace_to_jsonl(*trace)); !s) return usage_error(s.error().message);

  // The targets.
  std::vector<std::unique_ptr<BenchTarget>> targets;
  if (mode == "replay") {
    if (!server_cmd.empty()) {
      LspTargetOptions t;
      t.argv = server_cmd;
      t.stream = !o.no_stream;
      targets.push_back(make_lsp_target(t));
    } else if (!o.model.empty() || !o.fake_engine.empty() || o.backend != "local" || o.targets.empty()) {
      if (o.model.empty() && o.fake_engine.empty() && o.backend == "local")
        return usage_error("replay needs --model PATH, --backend with --backend-url, a server command after '--', or --target");
      targets.push_back(make_lsp_target(wafer_lsp(o)));
    }
  } else {
    if (o.url.empty() && o.targets.empty()) return usage_error("infill needs --url URL");
    if (!o.url.empty()) targets.push_back(make_http_target(http_target(o, o.api, o.url)));
  }
  for (const std::string& spec : o.targets) {
    auto t = target_from_spec(o, spec);
    if (!t) return usage_error(t.error().message);
    targets.push_back(std::move(*t));
  }

  // Run each target on the same trace, one after the other.
  std::vector<RunReport> runs;
  const bool tty = os::is_terminal(2) && !o.json;
  for (size_t i = 0; i < targets.size(); ++i) {
    ReplayOptions ro;
    ro.accept_probability = o.accept;
    ro.warmup = o.warmup;
    ro.drain_ms = o.drain_ms;
    std::string label = targets.size() > 1 ? "[" + std::to_string(i + 1) + "]" : "replay";
    if (tty) ro.progress = [&](size_t done, size_t total) { draw_progress(label, done, total); };
    Result<RunReport> run = replay(*trace, *targets[i], ro);
    if (tty) std::fprintf(stderr, "\n");
    if (!run) {
      std::fprintf(stderr, "wafer bench: %s: %s\n", targets[i]->name().c_str(), run.error().message.c_str());
      return kExitFailure;
    }
    runs.push_back(std::move(*run));
  }

  json report = to_json(runs[0]);
  report["trace"] = {{"path", trace->path},
                     {"language", trace->language_id},
                     {"steps", trace->steps.size()},
                     {"source", o.trace_file.empty() ? "synthesized" : o.trace_file},
                     {"seed", o.seed},
                     {"wpm", o.wpm},
                     {"accept", o.accept}};
  report["cpus"] = std::thread::hardware_concurrency();
  if (runs.size() > 1) {
    report["runs"] = json::array();
    for (const RunReport& r : runs) report["runs"].push_back(to_json(r));
  }
  const std::string report_text = report.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  if (!o.out_file.empty())
    if (Status s = write_whole(o.out_file, report_text); !s) {
      std::fprintf(stderr, "wafer bench: %s\n", s.error().message.c_str());
      return kExitFailure;
    }
  if (!o.html_file.empty())
    if (Status s = write_whole(o.html_file, html_report(runs, trace->path)); !s) {
      std::fprintf(stderr, "wafer bench: %s\n", s.error().message.c_str());
      return kExitFailure;
    }
  if (o.json) {
    std::fputs(report_text.c_str(), stdout);
  } else {
    for (size_t i = 0; i < runs.size(); ++i) {
      if (runs.size() > 1) std::printf("[%zu] ", i + 1);
      std::fputs(format_summary(runs[i]).c_str(), stdout);
    }
    if (runs.size() > 1) std::fputs(("\n" + format_comparison(runs)).c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace wafer
