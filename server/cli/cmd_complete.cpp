// `wafer complete FILE:LINE:COL [--model PATH|NAME] [--max-tokens N] [--json]`: one inline
// completion at a position of a file on disk, built and finished exactly as the daemon
// does for textDocument/inlineCompletion (server/service/completion_request.h: the same
// context window, extra context, request fields and stop rule; prompt/filters.h: the same
// post-processing), with the model chosen in the daemon's order (server/pull/model_choice.h).
// The suggestion goes to stdout; the model and the times to the first token and to the end
// to stderr (everything to stdout as one object with --json). LINE and COL count from 1;
// COL counts characters (Unicode code points), and may be one past the end of its line.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/base/path_utf8.h"
#include "grammars/registry.h"
#include "server/cli/commands.h"
#include "server/config/settings_table.h"
#include "server/service/completion_request.h"
#include "server/service/completion_service.h"
#include "server/service/service_options.h"
#include "server/document/utf8.h"
#include "server/prompt/extra_context.h"
#include "server/prompt/confidence_gate.h"
#include "server/prompt/filters.h"
#include "server/prompt/prompt_paths.h"
#include "server/document/workspace.h"
#include "server/platform/platform.h"
#include "server/pull/model_choice.h"

namespace wafer {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct FilePosition {
  std::string file;
  int line = 0, column = 0;  // 1-based
};

bool parse_positive(std::string_view s, int& out) {
  if (s.empty() || s.size() > 9) return false;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return v >= 1;
}

// FILE:LINE:COL; the file name may itself hold ':' (the last two fields are the numbers).
std::optional<FilePosition> parse_file_position(const std::string& arg) {
  const size_t c2 = arg.rfind(':');
  if (c2 == std::string::npos || c2 == 0) return std::nullopt;
  const size_t c1 = arg.rfind(':', c2 - 1);
  if (c1 == std::string::npos || c1 == 0) return std::nullopt;
  FilePosition p;
  p.file = arg.substr(0, c1);
  if (!parse_positive(std::string_view(arg).substr(c1 + 1, c2 - c1 - 1), p.line) ||
      !parse_positive(std::string_view(arg).substr(c2 + 1), p.column))
    return std::nullopt;
  return p;
}

// The byte offset of LINE:COL in text, or an error saying what the valid range is.
Result<size_t> offset_of(std::string_view text, int line, int column) {
  size_t start = 0;
  int lines = 1;
  for (; lines < line; ++lines) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  if (lines < line)
    return make_error("line " + std::to_string(line) + " is past the end of the file (it has " +
                      std::to_string(lines) + " line" + (lines == 1 ? "" : "s") + ")");
  size_t end = text.find('\n', start);
  if (end == std::string_view::npos) end = text.size();
  if (end > start && text[end - 1] == '\r') --end;
  size_t at = start;
  int col = 1;
  while (col < column && at < end) {
    const size_t n = utf8_sequence_length(text, at);
    at += n ? n : 1;
    ++col;
  }
  if (col < column)
    return make_error("column " + std::to_string(column) + " is past the end of line " + std::to_string(line) +
                      " (columns 1 to " + std::to_string(col) + ")");
  return at;
}

// A file: URI for an absolute path, percent-encoding what a URI may not hold as is.
int fail(const std::string& message) {
  std::fprintf(stderr, "wafer complete: %s\n", message.c_str());
  return kExitFailure;
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

}  // namespace

int run_complete(const Options& o) {
  std::optional<FilePosition> pos;
  if (o.positional.size() == 1) pos = parse_file_position(o.positional[0]);
  if (!pos) {
    std::fprintf(stderr, "wafer complete: expected one FILE:LINE:COL, LINE and COL from 1 (try 'wafer complete --help')\n");
    return kExitUsage;
  }
  std::error_code ec;
  if (!fs::is_regular_file(path_from_utf8(pos->file), ec)) return fail(pos->file + ": no such file");
  std::string text;
  {
    std::FILE* f = os::open_file(path_from_utf8(pos->file), "rb");
    if (!f) return fail(pos->file + ": cannot read it");
    char buf[65536];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
    const bool bad = std::ferror(f);
    std::fclose(f);
    if (bad) return fail(pos->file + ": cannot read it");
  }
  if (!is_valid_utf8(text)) return fail(pos->file + ": not UTF-8 text");
  Result<size_t> offset = offset_of(text, pos->line, pos->column);
  if (!offset) return fail(pos->file + ":" + std::to_string(pos->line) + ":" + std::to_string(pos->column) + ": " +
                           offset.error().message);

  // The model, in the daemon's order.
  Result<ModelChoice> choice = choose_model(o.model, default_model_search());
  if (!choice) return fail(choice.error().message);
  const Clock::time_point load_start = Clock::now();
  DraftOutcome draft;
  Result<std::unique_ptr<Engine>> engine = load_chosen_engine(engine_options(o), *choice, draft);
  if (!engine) return fail(engine.error().message);  // names the file
  if (!draft.left_out.empty()) std::fprintf(stderr, "wafer complete: %s\n", draft.left_out.c_str());
  const double load_ms = ms_since(load_start);
  const ModelInfo& model = (*engine)->info();

  // The file as an editor would open it: a document in a workspace, parsed by its grammar.
  const std::string path = utf8_from_path(fs::absolute(path_from_utf8(pos->file), ec).lexically_normal());
  const std::string uri = uri_from_path(path);
  const std::string root_uri = uri_from_path(workspace_root_of(path));
  const grammars::Language* language = grammars::language_by_path(path);
  Workspace workspace{native_file_name_rules()};
  if (Status st = workspace.open({uri, language ? std::string(language->name) : "plaintext", 1, text}); !st)
    return fail(st.error().message);
  const std::optional<Workspace::View> view = workspace.get(uri);
  if (!view) return fail("cannot open " + uri);

  // The document's own definitions are its only extra context.
  struct OwnDefinitions final : ExtraContextSource {
    const Workspace::View* view = nullptr;
    const grammars::Language* language = nullptr;
    std::vector<Definition> list;
    const std::vector<Definition>* own_definitions() override {
      if (const grammars::LanguageRules* rules = language ? grammars::language_rules(language->name) : nullptr)
        list = find_definitions(*view->snapshot, view->tree.get(), *rules);
      return &list;
    }
  } own;
  own.view = &*view;
  own.language = language;
  const PromptOptions prompt = prompt_options(o);
  CompletionSite site;
  site.options = &prompt;
  site.model = &model;
  site.root_uri = root_uri;
  site.uri = uri;
  site.view = &*view;
  site.offset = *offset;
  site.extra = &own;
  PreparedCompletion prepared = prepare_completion(site);

  const Clock::time_point t0 = Clock::now();
  double first_text_ms = -1;
  std::optional<CompletionEvent> done;
  (*engine)->complete(prepared.request, [&](const CompletionEvent& e) {
    if (e.kind == CompletionEvent::Kind::kText) {
      if (first_text_ms < 0 && !e.text.empty()) first_text_ms = ms_since(t0);
    } else {
      done = e;
    }
  });
  const double total_ms = ms_since(t0);
  if (!done) return fail("the engine did not finish");
  if (done->kind == CompletionEvent::Kind::kError) return fail(done->error);
  const Postprocessed pp = postprocess(done->text, *prepared.facts, prepared.mode);
  const Timings& t = done->timings;
  const Timings::Confidence confidence = shown_confidence(t.confidence, pp.text);
  const double first_ms = first_text_ms >= 0 ? first_text_ms : t.first_token_ms;

  if (o.json) {
    nlohmann::json j = {
        {"file", pos->file},
        {"line", pos->line},
        {"column", pos->column},
        {"suggestion", pp.text},
        {"mode", prepared.mode == Mode::kSingleLine ? "single_line" : "multi_line"},
        {"filters", pp.fired},
        {"model", {{"name", model.name}, {"path", choice->path}, {"source", to_string(choice->source)}}},
        {"draft_model", model.draft_model},
        {"load_ms", load_ms},
        {"first_token_ms", first_ms},
        {"total_ms", total_ms},
        {"tokens_prefilled", t.tokens_prefilled},
        {"tokens_generated", t.tokens_generated},
        {"confidence", first_line_confidence(confidence)},
    };
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  if (!pp.text.empty()) std::printf("%s%s", pp.text.c_str(), pp.text.ends_with('\n') ? "" : "\n");
  std::fflush(stdout);
  std::fprintf(stderr, "%smodel: %s\n", pp.text.empty() ? "(no suggestion at this position)\n" : "",
               describe_choice(*choice, model.name).c_str());
  if (!model.draft_model.empty()) std::fprintf(stderr, "draft model: %s\n", model.draft_model.c_str());
  std::fprintf(stderr, "time: first token %.1f ms, end %.1f ms (%d prompt tokens, %d generated; model load %.0f ms)\n",
               first_ms, total_ms, t.tokens_prefilled + t.tokens_reused, t.tokens_generated, load_ms);
  if (confidence.tokens > 0)
    std::fprintf(stderr,
                 "confidence: %.3f (the least likely of the shown first line's %d tokens; their geometric mean %.3f, "
                 "first token %.3f)\n",
                 first_line_confidence(confidence), confidence.tokens, std::exp(confidence.mean_logprob),
                 confidence.first_prob);
  return kExitOk;
}

}  // namespace wafer
