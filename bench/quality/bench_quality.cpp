// bench_quality: offline completion quality. On real source files the bundled model never
// saw (by default the held-out part of the machine's Python standard library, Debian's
// python3-requests and python3-yaml, and the C headers of /usr/include; files of the
// training split are left out, and refused when named), hide the rest of a line at random
// points, ask the model through the daemon's own pipeline (prepare_completion: window,
// extra context, mode, stop rule; then post-processing), and score the first suggested
// line against the hidden text: exact, a non-empty start of it (prefix), the same first
// token, edit similarity; with and without the post-processing; plus how often each rule
// and filter fired.
//
//   bench_quality [--model models/wafer-tiny-code-q8_0.gguf] [--points 200] [--seed 1]
//                 [--max-tokens 24] [--threads 1] [--show N] [--copy-strength C]
//                 [--token-healing on|off|both] [--suffix-tokens N[,N...]]
//                 [--context ROWS] [--open-files N] [--index-max-files N]
//                 [--chunk-reuse N[,N...]] [--typed K|line] [--fim-format NAME]
//                 [--thresholds P[,P...]] [--json] [--points-out FILE] [DIR_OR_FILE ...]
// --show N prints the first N points (hidden text, raw and post-processed suggestion).
// Any shown suggestion that writes a line of the text before the cursor twice or loops a
// span three times in a row (server/benchtool/degenerate_text.h) is printed and makes the
// exit status 1: the filters must have cut it.
// --thresholds 0,0.1,0.2 (the default: 0 to 0.6 in steps of 0.1) prints, per run, what the
// confidence gate (minConfidence) would show at each threshold: coverage (suggestions
// shown, of all points), precision (exact first lines, of those shown) and their mean edit
// similarity, over all points and per language. --json prints every run's totals and that table as one JSON object instead
// of the tables.
// --points-out FILE writes one JSON line per point and run: language, mode, the confidence
// of the shown first line (tokens, mean and least log-probability, first token's
// probability), whether a suggestion was shown and whether its first line was exact: the
// data to calibrate the gate's score on.
// --copy-strength C sets the copy predictor (engine/decode/copy_predictor.h; default: the model file's own,
// 0: off), to compare the model with and without it.
// --token-healing both asks with healing off, then on, at every point, a table for each.
// --suffix-tokens 256,64,0 asks at every point with the suffix cut to each budget (the
// window's suffix_tokens, in estimated tokens; the default is the daemon's): what a
// shorter suffix - as the first-token budget cuts it while typing - costs in quality.
// --typed K simulates typing: before each point is asked, the prompt is prefilled as it was
// K characters earlier on the line (at most back to the line's start; `line`: from the
// line's start), then once per character typed since, as the daemon's early prefill does
// on each keystroke; then the point is asked. With exact cache reuse this changes nothing
// (a check of the bench itself: the rows must equal those of --typed 0).
// --chunk-reuse 0,32 asks at every point with each chunkReuse setting (one engine each;
// engine/decode/chunk_reuse.h): with --typed, what moving the stale suffix instead of
// recomputing it costs in quality; each run also counts the points whose shown first line
// differs from the first setting's. Compare them with one --context row. --fim-format sets the
// prompt order as the daemon's fimFormat does (e.g. `qwen-psm` for prefix first, where a
// keystroke moves the suffix; the bundled model's file asks for suffix first, which a
// family name without -psm keeps).
// --context ROWS (comma-separated, default window; `all` = all four; `both` = window,index)
// asks at every point with the extra context of each row, each row adding its source to
// the ones before it, with the daemon's budgets (extraTokens, recentTokens):
//   window  the FIM window only;
//   open    + open buffers: the --open-files (default 3) files listed next to the file in
//           its folder are open, as an editor has neighbours open, and the same file's
//           definitions beyond the window;
//   index   + the workspace index (server/index) of the folder the file was taken from
//           (recursive), as the daemon builds it for the names in the window;
//   recent  + recent edits: the ring of recently edited places (server/prompt/recent_chunks.h)
//           holds the places of the points asked before, as if the user had edited at each
//           in turn before moving to this one.
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
#include "server/benchtool/degenerate_text.h"
#include "server/benchtool/line_baseline.h"
#include "server/benchtool/quality_metrics.h"
#include "server/benchtool/training_split.h"
#include "server/config/options.h"
#include "server/service/completion_request.h"
#include "server/service/service_options.h"
#include "server/index/workspace_index.h"
#include "server/prompt/confidence_gate.h"
#include "server/prompt/filters.h"
#include "server/prompt/prompt_paths.h"
#include "server/prompt/recent_chunks.h"
#include "server/document/workspace.h"

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
  int points = 0, exact = 0, prefix = 0, first_token = 0, empty = 0, raw_exact = 0, raw_prefix = 0;
  double similarity = 0, ms = 0;
};

// One point's first line `got` against the hidden `truth`: the counts every table shares.
void score(Tally& x, const std::string& got, const std::string& truth) {
  ++x.points;
  if (got.empty()) ++x.empty;
  if (got == truth) ++x.exact;
  if (!got.empty() && truth.starts_with(got)) ++x.prefix;
  if (!got.empty() && first_lexical_token(got) == first_lexical_token(truth)) ++x.first_token;
  x.similarity += edit_similarity(got, truth);
}

// The extra context a row adds, in the order rows add them.
enum class Row { kWindow, kOpen, kIndex, kRecent };
constexpr const char* kRowNames[] = {"window", "open", "index", "recent"};
constexpr const char* kRowLabels[] = {"window only", "+ open buffers", "+ workspace index", "+ recent edits"};

bool parse_rows(const std::string& list, std::vector<Row>* rows) {
  std::string expanded = list == "all" ? "window,open,index,recent" : list == "both" ? "window,index" : list;
  std::stringstream in(expanded);
  for (std::string item; std::getline(in, item, ',');) {
    auto it = std::find_if(std::begin(kRowNames), std::end(kRowNames), [&](const char* n) { return item == n; });
    if (it == std::end(kRowNames)) return false;
    rows->push_back(static_cast<Row>(it - std::begin(kRowNames)));
  }
  return !rows->empty();
}

}  // namespace

int main(int argc, char** argv) {
  std::string model = "models/wafer-tiny-code-q8_0.gguf";
  int points = 200, max_tokens = 24, threads = 1, show = 0, open_files = 3;
  float copy_strength = -1;  // < 0: the model file's own (engine/decode/copy_predictor.h)
  std::string healing = "on";
  std::vector<int> suffixes = {-1};  // -1: the daemon's window
  std::vector<int> chunk_reuses = {0};
  int typed = 0;  // characters typed since an exact prefill (-1: since the line's start)
  std::string fim_format = "auto";
  std::string context = "window";
  std::vector<double> thresholds = {0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
  bool json = false;
  std::string points_out;
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
    else if (a == "--json") json = true;
    else if (a == "--points-out") points_out = next();
    else if (a == "--thresholds") {
      thresholds.clear();
      std::stringstream list(next());
      for (std::string item; std::getline(list, item, ',');) thresholds.push_back(std::atof(item.c_str()));
    }
    else if (a == "--open-files") open_files = std::max(0, std::atoi(next().c_str()));
    else if (a == "--index-max-files") index_limits.max_files = static_cast<size_t>(std::atol(next().c_str()));
    else if (a == "--suffix-tokens") {
      suffixes.clear();
      std::stringstream list(next());
      for (std::string item; std::getline(list, item, ',');) suffixes.push_back(std::atoi(item.c_str()));
      if (suffixes.empty()) suffixes = {-1};
    }
    else if (a == "--chunk-reuse") {
      chunk_reuses.clear();
      std::stringstream list(next());
      for (std::string item; std::getline(list, item, ',');) chunk_reuses.push_back(std::max(0, std::atoi(item.c_str())));
      if (chunk_reuses.empty()) chunk_reuses = {0};
    }
    else if (a == "--fim-format") fim_format = next();
    else if (a == "--typed") {
      const std::string v = next();
      typed = v == "line" ? -1 : std::max(0, std::atoi(v.c_str()));
    }
    else roots.emplace_back(a);
  }
  if (roots.empty())
    roots = {"/usr/lib/python3.11", "/usr/lib/python3/dist-packages/requests", "/usr/lib/python3/dist-packages/yaml",
             "/usr/include"};

  std::vector<Row> rows;
  if (!parse_rows(context, &rows)) {
    std::fprintf(stderr, "bench_quality: --context: expected a comma-separated list of window, open, index, recent (or all)\n");
    return 1;
  }
  // Code the bundled model never saw: source files directly in the given folders (not
  // recursive), sorted, without the ones it was trained on (server/benchtool/training_split.h);
  // each with the folder it came from (its workspace for the index, its neighbours for
  // open buffers). A training file named on the command line is refused.
  std::vector<fs::path> files;
  std::map<std::string, std::string> root_of;
  int not_a_source = 0, held_out = 0, trained_left_out = 0;
  std::string used_roots;
  for (const fs::path& r : roots) {
    std::error_code ec;
    const fs::path abs = fs::absolute(r, ec).lexically_normal();
    auto take = [&](const fs::path& file, const fs::path& root) {
      const TrainingProvenance where = training_provenance(file);
      if (where.role == TrainingRole::kTrained) return false;
      ++(where.role == TrainingRole::kHeldOut ? held_out : not_a_source);
      files.push_back(file);
      root_of[file.string()] = root.string();
      return true;
    };
    if (fs::is_regular_file(abs, ec)) {
      if (!take(abs, abs.parent_path())) {
        std::fprintf(stderr, "bench_quality: %s is training data of the bundled model (%s in tools/train/corpus.py's split): "
                     "pass code it never saw\n", abs.c_str(), training_provenance(abs).key.c_str());
        return 1;
      }
      used_roots += " " + abs.string();
      continue;
    }
    if (!fs::is_directory(abs, ec)) {
      std::fprintf(stderr, "bench_quality: %s: not found, left out\n", abs.c_str());
      continue;
    }
    used_roots += " " + abs.string();
    for (const auto& e : fs::directory_iterator(abs, ec)) {
      static const char* const kExtensions[] = {".py", ".h", ".c", ".js", ".go"};
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || std::find(std::begin(kExtensions), std::end(kExtensions), ext) == std::end(kExtensions) ||
          e.file_size() <= 2000 || e.file_size() >= 200000)
        continue;
      if (!take(e.path().lexically_normal(), abs)) ++trained_left_out;
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "bench_quality: no held-out .py, .h, .c, .js or .go files found\n");
    return 1;
  }
  std::fprintf(json ? stderr : stdout, "files: %zu from%s: %d of no training source, %d held out by the training split; %d training files left out\n",
              files.size(), used_roots.c_str(), not_a_source, held_out, trained_left_out);
  if (healing != "on" && healing != "off" && healing != "both") {
    std::fprintf(stderr, "bench_quality: --token-healing: expected on, off or both\n");
    return 1;
  }

  // One engine per token-healing and chunk-reuse setting; one run per engine, suffix budget
  // and row.
  std::vector<std::unique_ptr<Engine>> engines;
  struct Run {
    std::string label;
    Engine* engine = nullptr;
    int suffix_tokens = -1;
    Row row = Row::kWindow;
    std::map<std::string, Tally> by_lang;
    std::map<std::string, int> fired;
    std::vector<GatedPoint> gated;
    std::map<std::string, std::vector<GatedPoint>> gated_by_lang;
    std::vector<std::string> degenerate;  // shown suggestions the filters should have cut
    std::vector<std::string> shown;       // each point's shown first line, in order
  };
  std::vector<Run> runs;
  // Runs are ordered by healing, chunk reuse, suffix and row: the run with the same healing,
  // suffix and row and the first chunk-reuse setting.
  auto first_reuse_twin = [&](size_t r) {
    const size_t block = suffixes.size() * rows.size();
    return r / (block * chunk_reuses.size()) * (block * chunk_reuses.size()) + r % block;
  };
  auto differing = [&](size_t r) {
    const std::vector<std::string>& a = runs[r].shown;
    const std::vector<std::string>& b = runs[first_reuse_twin(r)].shown;
    int n = 0;
    for (size_t k = 0; k < a.size() && k < b.size(); ++k) n += a[k] != b[k];
    return n;
  };
  for (bool on : {false, true})
    for (int reuse : chunk_reuses) {
      if (healing != "both" && (healing == "on") != on) continue;
      EngineOptions eo;
      eo.model_path = model;
      eo.threads = threads;
      eo.token_healing = on;
      eo.copy_strength = copy_strength;
      eo.chunk_reuse_min = reuse;
      eo.fim_format = fim_format;
      auto engine = load_engine(eo);
      if (!engine) {
        std::fprintf(stderr, "bench_quality: %s\n", engine.error().message.c_str());
        return 1;
      }
      engines.push_back(std::move(*engine));
      for (int suffix : suffixes)
        for (Row row : rows) {
          std::string label = on ? "token healing on" : "token healing off";
          if (chunk_reuses.size() > 1 || reuse > 0) label += ", chunk reuse " + std::to_string(reuse);
          if (suffix >= 0) label += ", suffix " + std::to_string(suffix) + " tokens";
          label += std::string(", ") + kRowLabels[static_cast<int>(row)];
          runs.push_back({label, engines.back().get(), suffix, row, {}, {}});
        }
    }
  const ModelInfo& info = engines[0]->info();
  FILE* const text_out = json ? stderr : stdout;  // --json: stdout holds the JSON alone
  std::ofstream point_lines;
  if (!points_out.empty()) {
    point_lines.open(points_out);
    if (!point_lines) {
      std::fprintf(stderr, "bench_quality: --points-out: cannot write %s\n", points_out.c_str());
      return 1;
    }
  }
  std::fprintf(text_out, "model %s (%s, %s), context %d tokens, copy strength %g; %zu files; %d points, seed %u",
              info.name.c_str(), info.architecture.c_str(), info.fim_format.c_str(), info.context_length,
              info.copy_strength, files.size(), points, seed);
  if (typed != 0) std::fprintf(text_out, typed < 0 ? "; typed from the line's start" : "; typed %d characters", typed);
  std::fprintf(text_out, "\n");

  std::map<std::string, std::shared_ptr<const WorkspaceIndex>> indexes;  // by root, built when first needed
  std::map<std::string, std::shared_ptr<const Snapshot>> visited;       // the points' files, by URI, as read
  RecentChunks recent;  // the places of the points asked so far
  recent.set_snapshot_of([&](const std::string& uri) {
    auto it = visited.find(uri);
    return it == visited.end() ? nullptr : it->second;
  });
  const Options defaults;
  std::mt19937 rng(seed);
  std::map<std::string, Tally> baseline;  // by language, over the same points
  for (int n = 0; n < points; ++n) {
    const size_t file_index = rng() % files.size();
    const fs::path& path = files[file_index];
    const std::string uri = uri_from_path(fs::absolute(path).lexically_normal().string());
    std::string text = read(path);
    auto snap0 = make_snapshot(uri, "", 1, text);
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
    const grammars::Language* lang = grammars::language_by_path(path.string());
    {  // the baseline: the rest of the most similar earlier line
      std::vector<std::string_view> lines(snap0->line_count());
      for (size_t k = 0; k < lines.size(); ++k) lines[k] = snap0->line(k);
      const std::string guess = trim(first_line(nearest_line_baseline(lines, line, col)));
      for (Tally* x : {&baseline[lang ? std::string(lang->name) : "other"], &baseline["(all)"]}) score(*x, guess, truth);
    }
    // The editor: this document as the user has it (the rest of the line not yet written),
    // and the files listed next to it in its folder.
    const std::string language_id = lang ? std::string(lang->name) : "plaintext";
    const std::string& root = root_of[path.string()];
    const std::string root_uri = uri_from_path(root);
    Workspace workspace;  // no limits set: open() cannot fail
    (void)workspace.open(
        {uri, language_id, 1, text.substr(0, cursor) + text.substr(snap0->line_starts[line] + l.size())});
    std::vector<std::string> open_paths;  // relative to the root, sorted: the index leaves them out
    open_paths.push_back(fs::relative(path, root).generic_string());
    for (size_t k = 1, opened = 0; opened < static_cast<size_t>(open_files) && k < files.size(); ++k) {
      for (size_t idx : {file_index + k, file_index - k}) {  // after, then before (wraps past 0: skipped)
        if (idx >= files.size() || root_of[files[idx].string()] != root || opened == static_cast<size_t>(open_files))
          continue;
        const grammars::Language* other = grammars::language_by_path(files[idx].string());
        (void)workspace.open({uri_from_path(fs::absolute(files[idx]).lexically_normal().string()),
                        other ? std::string(other->name) : "plaintext", 1, read(files[idx])});
        open_paths.push_back(fs::relative(files[idx], root).generic_string());
        ++opened;
      }
    }
    std::sort(open_paths.begin(), open_paths.end());
    const std::optional<Workspace::View> view = workspace.get(uri);
    if (!view) continue;
    std::map<std::string, std::vector<Definition>> definitions;  // by URI, found when first asked for
    auto definitions_of = [&](const std::string& u, const Workspace::View& v) -> const std::vector<Definition>& {
      auto [it, fresh] = definitions.try_emplace(u);
      if (fresh)
        if (const grammars::LanguageRules* rules = v.language ? grammars::language_rules(v.language->name) : nullptr)
          it->second = find_definitions(*v.snapshot, v.tree.get(), *rules);
      return it->second;
    };

    // The daemon's sources of extra context, over this run's workspace and index.
    struct Extra final : ExtraContextSource {
      std::function<std::vector<ExtraSource>(const std::vector<std::string>&)> others_of;
      std::function<const std::vector<Definition>&()> own;
      std::function<std::vector<ContextFile>(std::string_view, int)> recent_of;
      std::vector<ExtraSource> others(const std::vector<std::string>& names) override { return others_of(names); }
      const std::vector<Definition>* own_definitions() override { return &own(); }
      std::vector<ContextFile> recent(std::string_view window, int budget) override { return recent_of(window, budget); }
    };
    for (Run& run : runs) {
      Options o;
      o.max_tokens = max_tokens;
      if (run.suffix_tokens >= 0) o.suffix_tokens = run.suffix_tokens;
      o.extra_tokens = run.row >= Row::kOpen ? defaults.extra_tokens : 0;
      o.recent_tokens = run.row >= Row::kRecent ? defaults.recent_tokens : 0;
      Extra extra;
      extra.others_of = [&](const std::vector<std::string>& names) {
        std::vector<ExtraSource> sources;
        for (const std::string& other : workspace.uris()) {  // sorted, as the daemon takes them
          std::optional<Workspace::View> v = workspace.get(other);
          if (other == uri || !v || !v->language || !lang || !related_languages(v->language->name, lang->name)) continue;
          sources.push_back({prompt_path(root_uri, other), &definitions_of(other, *v), 0, 0, false});
        }
        if (run.row >= Row::kIndex && lang) {
          auto& index = indexes[root];
          if (!index) index = WorkspaceIndex::build(root, index_limits);
          for (ExtraSource& s : index->sources_for(names, lang->name, open_paths, related_languages)) {
            s.path = prompt_path(root_uri, uri_from_path(index->root() + "/" + s.path));
            s.kind = "index";
            sources.push_back(std::move(s));
          }
        }
        return sources;
      };
      extra.own = [&]() -> const std::vector<Definition>& { return definitions_of(uri, *view); };
      extra.recent_of = [&](std::string_view window, int budget) {
        return recent.for_prompt(window, budget, [&](const std::string& u) { return prompt_path(root_uri, u); });
      };
      const PromptOptions prompt = prompt_options(o);
      auto prepare_at = [&](const Workspace::View& v, size_t offset) {
        CompletionSite at;
        at.options = &prompt;
        at.model = &info;
        at.root_uri = root_uri;
        at.uri = uri;
        at.view = &v;
        at.offset = offset;
        at.extra = &extra;
        return prepare_completion(at);
      };
      // Typing up to the point: the document as it was `back` characters earlier, prefilled
      // the way the daemon's early prefill does after each keystroke.
      const size_t typed_chars = typed < 0 ? col : std::min(col, static_cast<size_t>(typed));
      for (size_t back = typed_chars; back > 0; --back) {
        Workspace earlier;
        (void)earlier.open({uri, language_id, 1,
                            text.substr(0, cursor - back) + text.substr(snap0->line_starts[line] + l.size())});
        const std::optional<Workspace::View> earlier_view = earlier.get(uri);
        if (!earlier_view) break;
        PreparedCompletion warm = prepare_at(*earlier_view, cursor - back);
        warm.request.prefill_only = true;
        run.engine->complete(warm.request, [](const CompletionEvent&) {});
      }
      PreparedCompletion prepared = prepare_at(*view, cursor);
      std::string raw;
      Timings::Confidence confidence;
      auto t0 = std::chrono::steady_clock::now();
      run.engine->complete(prepared.request, [&](const CompletionEvent& e) {
        if (e.kind != CompletionEvent::Kind::kDone) return;
        raw = e.text;
        confidence = e.timings.confidence;
      });
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      Postprocessed pp = postprocess(raw, *prepared.facts, prepared.mode);
      for (const std::string& f : pp.fired) ++run.fired[f];
      Tally& t = run.by_lang[lang ? std::string(lang->name) : "other"];
      Tally& all = run.by_lang["(all)"];
      std::string got = trim(first_line(pp.text)), got_raw = trim(first_line(raw));
      const Timings::Confidence shown_conf = shown_confidence(confidence, pp.text);
      const double conf = first_line_confidence(shown_conf);
      if (point_lines.is_open())
        point_lines << nlohmann::json{{"run", run.label}, {"file", path.filename().string()}, {"line", line + 1},
                                      {"language", lang ? std::string(lang->name) : "other"},
                                      {"mode", prepared.mode == Mode::kSingleLine ? "single" : "multi"},
                                      {"tokens", shown_conf.tokens}, {"mean_logprob", shown_conf.mean_logprob},
                                      {"min_logprob", shown_conf.min_logprob}, {"first_prob", shown_conf.first_prob},
                                      {"confidence", conf}, {"shown", !got.empty()}, {"exact", got == truth},
                                      {"chars", got.size()}, {"similarity", edit_similarity(got, truth)}}
                           .dump()
                    << "\n";
      if (n < show)
        std::fprintf(text_out, "%s:%zu mode %s, %s, %zu extra chunks, confidence %.3f\n  hidden %s\n  raw    %s\n  shown  %s\n",
                    path.filename().c_str(), line + 1, prepared.mode == Mode::kSingleLine ? "single" : "multi",
                    run.label.c_str(), prepared.request.extra.size(), conf, truth.c_str(), nlohmann::json(raw).dump().c_str(),
                    nlohmann::json(pp.text).dump().c_str());
      if (!pp.text.empty()) {
        const std::string_view before(text.data(), cursor);
        const char* what = repeats_prefix_line(before, pp.text) ? "repeats a line of the prefix"
                           : loops_span(pp.text)                  ? "loops a span three times"
                                                                  : nullptr;
        if (what)
          run.degenerate.push_back(path.filename().string() + ":" + std::to_string(line + 1) + " " + what + ": " +
                                   nlohmann::json(pp.text).dump());
      }
      run.shown.push_back(got);
      const GatedPoint gated_point{conf, !got.empty(), got == truth, edit_similarity(got, truth)};
      run.gated.push_back(gated_point);
      run.gated_by_lang[lang ? std::string(lang->name) : "other"].push_back(gated_point);
      for (Tally* x : {&t, &all}) {
        score(*x, got, truth);
        x->ms += ms;
        if (got_raw == truth) ++x->raw_exact;
        if (!got_raw.empty() && truth.starts_with(got_raw)) ++x->raw_prefix;
      }
    }
    // The user edited here, then moves on to the next point.
    visited[uri] = snap0;
    recent.edited(*snap0, line);
  }
  // What the filters must never let through (server/prompt/filters.h): a failure, printed.
  size_t degenerate = 0;
  for (const Run& run : runs) {
    degenerate += run.degenerate.size();
    for (const std::string& d : run.degenerate) std::fprintf(stderr, "bench_quality: %s: %s\n", run.label.c_str(), d.c_str());
  }
  if (json) {
    nlohmann::json out = {{"model", model}, {"runs", nlohmann::json::array()}, {"degenerate_shown", degenerate}};
    const Tally& b = baseline["(all)"];
    out["baseline"] = {{"points", b.points}, {"exact", b.exact}, {"empty", b.empty},
                       {"edit_similarity", b.points ? b.similarity / b.points : 0.0}};
    for (size_t i = 0; i < runs.size(); ++i) {
      const Run& run = runs[i];
      const Tally& t = run.by_lang.at("(all)");
      auto gate_json = [&](const std::vector<GatedPoint>& points) {
        nlohmann::json gate = nlohmann::json::array();
        for (const GateRow& r : gate_table(points, thresholds))
          gate.push_back({{"threshold", r.threshold}, {"shown", r.shown}, {"coverage", r.coverage},
                          {"precision", r.precision}, {"edit_similarity", r.similarity}});
        return gate;
      };
      nlohmann::json by_language = nlohmann::json::object();
      for (const auto& [name, points] : run.gated_by_lang)
        by_language[name] = {{"points", points.size()}, {"gate", gate_json(points)}};
      out["runs"].push_back({{"label", run.label}, {"points", t.points}, {"exact", t.exact}, {"empty", t.empty},
                             {"differ_from_first_chunk_reuse", differing(i)},
                             {"edit_similarity", t.points ? t.similarity / t.points : 0.0}, {"gate", gate_json(run.gated)},
                             {"gate_by_language", by_language}});
    }
    std::printf("%s\n", out.dump(2).c_str());
    return degenerate ? 1 : 0;
  }
  std::printf("baseline: repeat the most similar earlier line\n%-8s %6s %7s %8s %7s %7s %7s\n", "lang", "points", "exact%",
              "prefix%", "token%", "edit%", "empty%");
  for (const auto& [name, t] : baseline) {
    auto pct = [&](double v) { return t.points ? 100.0 * v / t.points : 0.0; };
    std::printf("%-8s %6d %7.1f %8.1f %7.1f %7.1f %7.1f\n", name.c_str(), t.points, pct(t.exact), pct(t.prefix),
                pct(t.first_token), pct(t.similarity), pct(t.empty));
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run& run = runs[i];
    std::printf("%s\n%-8s %6s %7s %8s %7s %7s %7s %10s %11s %7s\n", run.label.c_str(), "lang", "points", "exact%",
                "prefix%", "token%", "edit%", "empty%", "raw_exact%", "raw_prefix%", "ms/pt");
    for (const auto& [name, t] : run.by_lang) {
      auto pct = [&](double v) { return t.points ? 100.0 * v / t.points : 0.0; };
      std::printf("%-8s %6d %7.1f %8.1f %7.1f %7.1f %7.1f %10.1f %11.1f %7.1f\n", name.c_str(), t.points, pct(t.exact),
                  pct(t.prefix), pct(t.first_token), pct(t.similarity), pct(t.empty), pct(t.raw_exact),
                  pct(t.raw_prefix), t.points ? t.ms / t.points : 0.0);
    }
    if (chunk_reuses.size() > 1 && first_reuse_twin(i) != i)
      std::printf("shown first lines that differ from chunk reuse %d's: %d of %zu points\n", chunk_reuses[0],
                  differing(i), run.shown.size());
    std::printf("rules and filters fired (of %d points):\n", points);
    for (const auto& [name, count] : run.fired) std::printf("  %-28s %d\n", name.c_str(), count);
    std::printf("confidence gate (minConfidence): of %zu points\n%-8s %9s %6s %9s %10s %6s\n", run.gated.size(), "lang",
                "threshold", "shown", "coverage%", "precision%", "edit%");
    auto gate_rows = [&](const std::string& name, const std::vector<GatedPoint>& points) {
      for (const GateRow& r : gate_table(points, thresholds))
        std::printf("%-8s %9.2f %6d %9.1f %10.1f %6.1f\n", name.c_str(), r.threshold, r.shown, 100 * r.coverage,
                    100 * r.precision, 100 * r.similarity);
    };
    gate_rows("(all)", run.gated);
    for (const auto& [name, points] : run.gated_by_lang) gate_rows(name, points);
  }
  std::printf("degenerate suggestions shown (a line of the prefix twice, a span three times in a row): %zu\n",
              degenerate);
  return degenerate ? 1 : 0;
}
