// Completion building blocks that know nothing of JSON-RPC or threads: the FIM request
// for a cursor (simple prefix/suffix windows by lines and bytes; the context issue makes
// them syntax-aware and token-measured), and the LSP results made from a suggestion —
// an InlineCompletionList for textDocument/inlineCompletion and a one-item CompletionList
// for clients that only have textDocument/completion.
#pragma once

#include <string>
#include <string_view>

#include "engine/engine.h"
#include "server/documents.h"
#include "server/options.h"
#include "server/protocol.h"

namespace wafer {

struct FimWindow {
  int prefix_lines = 60;   // whole lines before the cursor's line
  int suffix_lines = 20;   // whole lines after the cursor's line
  size_t max_bytes = 16384;  // cap on each of prefix and suffix (cut at a line start/end)
};

FimWindow fim_window(const Options& o);

// Prefix: the cursor line's head plus up to prefix_lines lines before it; suffix: the rest
// of the cursor line plus up to suffix_lines lines after it. When a side exceeds
// max_bytes, whole lines are dropped from its far end (at least the cursor's line part
// is kept, cut on a UTF-8 boundary).
CompletionRequest build_fim_request(const Snapshot& s, size_t cursor, const FimWindow& w);

// The suggestion as inline completion items (none when text is empty), inserted at the
// cursor: range = {cursor, cursor}, on the cursor's line.
lsp::InlineCompletionList inline_completion_result(const std::string& text, const lsp::Position& cursor);

// The suggestion as one CompletionItem whose textEdit inserts it at the cursor; the label
// is its first line (clients show labels on one line).
lsp::CompletionList completion_result(const std::string& text, const lsp::Position& cursor);

}  // namespace wafer
