// The engine request for a completion at a position of a document, built one way for
// every caller: the daemon's textDocument/inlineCompletion (and its warm-up) and
// `wafer complete FILE:LINE:COL`. The FIM window at syntactic cut points (prompt/context.h)
// fitted to the model's context, extra context (definitions from other documents and from
// the same document beyond the window), the file and repository names, max_tokens, the
// single/multi-line mode and the syntax-aware stop rule the engine checks after each token.
// The caller post-processes the engine's text with postprocess(text, *facts, mode).
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "server/prompt/context.h"
#include "server/prompt/extra_context.h"
#include "server/prompt/stop_rules.h"
#include "server/document/workspace.h"

namespace wafer {

// Where a completion's extra context comes from. Each caller that has more than the
// document itself (the service: other open documents, the workspace index, recent edits,
// and the choice it keeps per document) implements the parts it has; the defaults add
// nothing and choose afresh every time.
class ExtraContextSource {
 public:
  virtual ~ExtraContextSource() = default;
  // Definitions of other documents worth showing for the names used near the cursor (open
  // buffers of related languages, sorted by URI, then the workspace index's files that
  // define one of the names, by path), each with its prompt path. Asked for only when
  // there is a budget for extra context.
  virtual std::vector<ExtraSource> others(const std::vector<std::string>& names) {
    (void)names;
    return {};
  }
  // The document's own definitions (used when the window leaves part of the document
  // out); null: none known.
  virtual const std::vector<Definition>* own_definitions() { return nullptr; }
  // Chunks the user recently edited elsewhere (prompt/recent_chunks.h) for a window showing
  // `window` (prefix + suffix), within `budget` tokens; placed after the definitions, so
  // they count in the extra context kept below.
  virtual std::vector<ContextFile> recent(std::string_view window, int budget) {
    (void)window;
    (void)budget;
    return {};
  }
  // The extra context at a window position. The prompt starts with it, so a change costs a
  // prefill of the whole prompt; while the user types, the names in the window and the
  // document's definitions change (a finished line adds names, half-written code turns
  // parts of the tree into errors), so a caller that serves many keystrokes keeps its
  // choice until the window's start moves (in steps of prefix_step_lines), the budget
  // changes or another document it draws on changes. `choose` chooses afresh.
  using ChooseExtra = std::function<std::vector<ContextFile>()>;
  virtual std::vector<ContextFile> keep(size_t window_begin, int budget, const ChooseExtra& choose) {
    (void)window_begin;
    (void)budget;
    return choose();
  }
};

// What a completion's prompt reads of the settings (filled from them by prompt_options(),
// service_options.h).
struct PromptOptions {
  FimWindow window;        // prefixTokens, suffixTokens, prefixLines, suffixLines, prefixStepLines, windowBytes
  int extra_tokens = 0;    // extraTokens: definitions from other files and beyond the window
  int recent_tokens = 0;   // recentTokens: chunks recently edited elsewhere (0: off)
  int max_tokens = 0;      // maxTokens: the completion's budget
};

struct CompletionSite {
  const PromptOptions* options = nullptr;
  const ModelInfo* model = nullptr;  // null: unknown (the window is not fitted to a context)
  std::string_view root_uri;         // the workspace root: names files in the prompt ("" none)
  std::string_view uri;              // the document
  const Workspace::View* view = nullptr;
  size_t offset = 0;                      // the cursor, in bytes
  ExtraContextSource* extra = nullptr;    // null: the document alone
};

// The request (session_key, prefix, suffix, extra, names, max_tokens) and cursor facts;
// `window` gets the FIM window used. The request has no should_stop yet.
FimContext completion_context(const CompletionSite& site, FimWindow& window);

// The stop rule the engine calls with the text so far (runs on the engine thread; reads
// only the immutable facts): the stop rules, and a loop (ngram_loop.h), whose copies after
// the first post-processing drops anyway.
std::function<bool(std::string_view)> completion_stop_rule(std::shared_ptr<const CursorFacts> facts, Mode mode);

struct PreparedCompletion {
  CompletionRequest request;  // with should_stop
  std::shared_ptr<const CursorFacts> facts;
  Mode mode = Mode::kSingleLine;
  FimWindow window;
};

// completion_context(), the mode decided from the cursor facts, and the stop rule.
PreparedCompletion prepare_completion(const CompletionSite& site);

}  // namespace wafer
