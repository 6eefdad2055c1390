// bench_quality: offline completion quality. On held-out real source files (by default the
// machine's Python standard library and C headers), hide the rest of a line at random
// points, ask the model through the daemon's own pipeline (context builder, mode, stop
// rules as should_stop, post-processing), and report how often the first suggested line
// equals the hidden text (exact) or is a non-empty start of it (prefix), with and without
// the post-processing, plus how often each rule and filter fired.
//
//   bench_quality [--model models/wafer-tiny-code-q8_0.gguf] [--points 200] [--seed 1]
//                 [--max-tokens 24] [--threads 1] [--show N] [--copy-strength C]
//                 [--token-healing on|off|both] [--suffix-tokens N[,N...]]
//                 [--context window|index|both] [--index-max-files N] [DIR_OR_FILE ...]
// --show N prints the first N points (hidden text, raw and post-processed suggestion).
// --copy-strength C sets the copy predictor (engine/decode/copy_predictor.h; default: the model file's own,
// 0: off), to compare the model with and without it.
// --token-healing both asks two engines (healing off, then on) at every point of the same
// run and prints a table for each.
// --suffix-tokens 256,64,0 asks at every point with the suffix cut to each budget (the
// window's suffix_tokens, in estimated tokens; the default is the daemon's): what a
// shorter suffix - as the first-token budget cuts it while typing - costs in quality.
// --context index adds extra context from the workspace index (server/index) of the folder
// each file was taken from (recursive, the file itself left out), as the daemon builds it
// for the names in the window, within the daemon's extraTokens budget fitted to the model;
// both: every point with and without it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "server/index/workspace_index.h"
#include "server/prompt/context.h"
#include "server/prompt/extra_context.h"
#include "server/prompt/filters.h"
#include "server/prompt/stop_rules.h"
#include "server/prompt/syntax.h"

namespace fs = std::filesystem;
using namespace wafer;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::string first_line(std::string_view s) { return std::string(s.substr(0, s.find('\n'))); }

struct Tally {
  int points = 0, exact = 0, prefix = 0, empty = 0, raw_exact = 0, raw_prefix = 0;
  double ms = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::string model = "models/wafer-tiny-code-q8_0.gguf";
  int points = 200, max_tokens = 24, threads = 1, show = 0;
  float copy_strength = -1;  // < 0: the model file's own (engine/decode/copy_predictor.h)
  std::string healing = "on";
  std::vector<int> suffixes = {-1};  // -1: the daemon's window
  std::string context = "window";
  IndexLimits index_limits;
  index_limits.max_files = 2000;
  unsigned seed = 1;
  std::vector<fs::path> roots;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--model") model = next();
    else if (a == "--points") points = std::atoi(next().c_str());
    else if (a == "--seed") seed = static_cast<unsigned>(std::atoi(next().c_str()));
    else if (a == "--max-tokens") max_tokens = std::atoi(next().c_str());
    else if (a == "--threads") threads = std::atoi(next().c_str());
    else if (a == "--show") show = std::atoi(next().c_str());
    else if (a == "--copy-strength") copy_strength = std::strtof(next().c_str(), nullptr);
    else if (a == "--token-healing") healing = next();
    else if (a == "--context") context = next();
    else if (a == "--index-max-files") index_limits.max_files = static_cast<size_t>(std::atol(next().c_str()));
    else if (a == "--suffix-tokens") {
      suffixes.clear();
      std::stringstream list(next());
      for (std::string item; std::getline(list, item, ',');) suffixes.push_back(std::atoi(item.c_str()));
      if (suffixes.empty()) suffixes = {-1};
    }
    else roots.emplace_back(a);
  }
  if (roots.empty()) roots = {"/usr/lib/python3.11", "/usr/include"};

  if (context != "window" && context != "index" && context != "both") {
    std::fprintf(stderr, "bench_quality: --context: expected window, index or both\n");
    return 1;
  }
  // Held-out files: .py and .h directly in the given folders (not recursive), sorted; each
  // with the folder it came from (its workspace for --context index).
  std::vector<fs::path> files;
  std::map<std::string, std::string> root_of;
  for (const fs::path& r : roots) {
    std::error_code ec;
    if (fs::is_regular_file(r, ec)) {
      files.push_back(r);
      root_of[r.string()] = fs::absolute(r, ec).parent_path().string();
      continue;
    }
    for (const auto& e : fs::directory_iterator(r, ec)) {
      auto ext = e.path().extension();
      if (e.is_regular_file() && (ext == ".py" || ext == ".h") && e.file_size() > 2000 && e.file_size() < 200000) {
        files.push_back(e.path());
        root_of[e.path().string()] = fs::absolute(r, ec).lexically_normal().string();
      }
    }
  }
  std::map<std::string, std::shared_ptr<const WorkspaceIndex>> indexes;  // by root, built when first needed
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "bench_quality: no .py or .h files found\n");
    return 1;
  }

  if (healing != "on" && healing != "off" && healing != "both") {
    std::fprintf(stderr, "bench_quality: --token-healing: expected on, off or both\n");
    return 1;
  }
  // One engine per token-healing setting and suffix budget measured.
  struct Run {
    std::string label;
    int suffix_tokens = -1;
    bool index = false;
    std::unique_ptr<Engine> engine;
    std::map<std::string, Tally> by_lang;
    std::map<std::string, int> fired;
  };
  std::vector<Run> runs;
  for (bool with_index : {false, true})
  for (bool on : {false, true})
  for (int suffix : suffixes) {
    if (healing != "both" && (healing == "on") != on) continue;
    if (context != "both" && (context == "index") != with_index) continue;
    EngineOptions eo;
    eo.model_path = model;
    eo.threads = threads;
    eo.token_healing = on;
    eo.copy_strength = copy_strength;
    auto engine = load_engine(eo);
    if (!engine) {
      std::fprintf(stderr, "bench_quality: %s\n", engine.error().message.c_str());
      return 1;
    }
    std::string label = on ? "token healing on" : "token healing off";
    if (suffix >= 0) label += ", suffix " + std::to_string(suffix) + " tokens";
    label += with_index ? ", + workspace index" : ", window only";
    runs.push_back({label, suffix, with_index, std::move(*engine), {}, {}});
  }
  const ModelInfo& info = runs[0].engine->info();
  std::printf("model %s (%s, %s), context %d tokens, copy strength %g; %zu files; %d points, seed %u\n",
              info.name.c_str(), info.architecture.c_str(), info.fim_format.c_str(), info.context_length,
              info.copy_strength, files.size(), points, seed);

  std::mt19937 rng(seed);
  for (int n = 0; n < points; ++n) {
    const fs::path& path = files[rng() % files.size()];
    std::string text = read(path);
    auto snap0 = make_snapshot("file://" + path.string(), "", 1, text);
    // A line with something to complete, cut after its indentation + 0..len-1 characters.
    size_t line = 0, tries = 0;
    std::string_view l;
    do {
      line = rng() % snap0->line_count();
      l = snap0->line(line);
    } while (trim(l).size() < 4 && ++tries < 100);
    size_t indent = l.find_first_not_of(" \t");
    if (indent == std::string_view::npos) continue;
    size_t col = indent + rng() % (l.size() - indent);
    const size_t cursor = snap0->line_starts[line] + col;
    const std::string truth = trim(l.substr(col));
    // The document as the user has it: the rest of the line not yet written.
    std::string doc = text.substr(0, cursor) + text.substr(snap0->line_starts[line] + l.size());
    const grammars::Language* lang = grammars::language_by_path(path.string());
    auto snap = make_snapshot("file://" + path.string(), lang ? std::string(lang->name) : "", 1, doc);
    std::unique_ptr<SyntaxTree> syntax;
    SharedTree tree;
    const grammars::LanguageRules* rules = nullptr;
    if (lang) {
      syntax = std::make_unique<SyntaxTree>(*lang);
      syntax->reset(doc);
      tree = syntax->snapshot();
      rules = grammars::language_rules(lang->name);
    }
    for (Run& run : runs) {
      FimWindow w;
      if (run.suffix_tokens >= 0) w.suffix_tokens = run.suffix_tokens;
      int extra = run.index ? Options{}.extra_tokens : 0;
      fit_to_context(w, extra, estimated_context(info), max_tokens);
      if (info.copy_strength > 0) w.copy_bytes = kCopyBytes;  // as the daemon does
      FimContext ctx = build_context(*snap, tree.get(), rules, cursor, w);
      if (run.index && extra > 0 && lang) {
        const std::string& root = root_of[path.string()];
        auto& index = indexes[root];
        if (!index) index = WorkspaceIndex::build(root, index_limits);
        const std::string& pre = ctx.request.prefix;
        const std::string window_text =
            pre.substr(0, pre.size() - std::min(pre.size(), ctx.facts.line_head.size())) + ctx.facts.after_lines;
        const std::vector<std::string> names = identifiers_in(window_text);
        const std::string self = fs::relative(path, root).generic_string();  // the hidden line is in it
        const auto sources = index->sources_for(names, lang->name, {self}, related_languages);
        ctx.request.extra = build_extra_context(names, sources, extra);
      }
      const Mode mode = decide_mode(ctx.facts);
      CompletionRequest req = ctx.request;
      req.max_tokens = max_tokens;
      std::string raw;
      req.should_stop = [&](std::string_view t) { return find_stop(t, ctx.facts, mode).stopped; };
      auto t0 = std::chrono::steady_clock::now();
      run.engine->complete(req, [&](const CompletionEvent& e) {
        if (e.kind == CompletionEvent::Kind::kDone) raw = e.text;
      });
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      Postprocessed pp = postprocess(raw, ctx.facts, mode);
      for (const std::string& f : pp.fired) ++run.fired[f];
      Tally& t = run.by_lang[lang ? std::string(lang->name) : "other"];
      Tally& all = run.by_lang["(all)"];
      std::string got = trim(first_line(pp.text)), got_raw = trim(first_line(raw));
      if (n < show)
        std::printf("%s:%zu mode %s, %s\n  hidden %s\n  raw    %s\n  shown  %s\n", path.filename().c_str(), line + 1,
                    mode == Mode::kSingleLine ? "single" : "multi", run.label.c_str(), truth.c_str(),
                    nlohmann::json(raw).dump().c_str(), nlohmann::json(pp.text).dump().c_str());
      for (Tally* x : {&t, &all}) {
        ++x->points;
        x->ms += ms;
        if (got.empty()) ++x->empty;
        if (got == truth) ++x->exact;
        if (!got.empty() && truth.starts_with(got)) ++x->prefix;
        if (got_raw == truth) ++x->raw_exact;
        if (!got_raw.empty() && truth.starts_with(got_raw)) ++x->raw_prefix;
      }
    }
  }
  for (const Run& run : runs) {
    std::printf("%s\n%-8s %6s %8s %8s %8s %10s %10s %8s\n", run.label.c_str(), "lang", "points", "exact%", "prefix%",
                "empty%", "raw_exact%", "raw_prefix%", "ms/pt");
    for (const auto& [name, t] : run.by_lang) {
      auto pct = [&](int v) { return t.points ? 100.0 * v / t.points : 0.0; };
      std::printf("%-8s %6d %8.1f %8.1f %8.1f %10.1f %10.1f %8.1f\n", name.c_str(), t.points, pct(t.exact),
                  pct(t.prefix), pct(t.empty), pct(t.raw_exact), pct(t.raw_prefix), t.points ? t.ms / t.points : 0.0);
    }
    std::printf("rules and filters fired (of %d points):\n", points);
    for (const auto& [name, count] : run.fired) std::printf("  %-28s %d\n", name.c_str(), count);
  }
  return 0;
}
