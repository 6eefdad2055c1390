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
#include "server/config/options.h"
#include "server/prompt/context.h"
#include "server/prompt/extra_context.h"
#include "server/prompt/stop_rules.h"
#include "server/prompt/workspace.h"

namespace wafer {

struct CompletionSite {
  const Options* options = nullptr;
  const ModelInfo* model = nullptr;  // null: unknown (the window is not fitted to a context)
  std::string_view root_uri;         // the workspace root: names files in the prompt ("" none)
  std::string_view uri;              // the document
  const Workspace::View* view = nullptr;
  size_t offset = 0;                 // the cursor, in bytes
  // Both asked for only when there is a budget for extra context: definitions of other
  // documents worth showing for the names used near the cursor (the daemon's open buffers
  // of related languages, sorted by URI, then the workspace index's files that define one
  // of the names, by path), each with its prompt path; and the document's own (used when
  // the window leaves part of the document out). Either may be empty.
  std::function<std::vector<ExtraSource>(const std::vector<std::string>& names)> others;
  std::function<const std::vector<Definition>&()> own_definitions;
  // Optional: chunks the user recently edited elsewhere (prompt/recent_chunks.h) for a
  // window showing `window` (prefix + suffix), within `budget` tokens; placed after the
  // definitions, so they count in the extra context kept below.
  std::function<std::vector<ContextFile>(std::string_view window, int budget)> recent;
  // Optional: keeps the extra context chosen at a window position. The prompt starts with
  // it, so a change costs a prefill of the whole prompt; while the user types, the names in
  // the window and the document's definitions change (a finished line adds names,
  // half-written code turns parts of the tree into errors), so the daemon keeps its choice
  // until the window's start moves (in steps of prefix_step_lines), the budget changes or
  // another document it draws on changes. Called with the window start, the budget and the
  // function that chooses afresh.
  using ChooseExtra = std::function<std::vector<ContextFile>()>;
  std::function<std::vector<ContextFile>(size_t window_begin, int budget, const ChooseExtra& choose)> keep_extra;
};

// The request (session_key, prefix, suffix, extra, names, max_tokens) and cursor facts;
// `window` gets the FIM window used. The request has no should_stop yet.
FimContext completion_context(const CompletionSite& site, FimWindow& window);

// The stop rule the engine calls with the text so far (runs on the engine thread; reads
// only the immutable facts).
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
