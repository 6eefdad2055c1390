// The LSP results made from a suggestion — an InlineCompletionList for
// textDocument/inlineCompletion and a one-item CompletionList for clients that only have
// textDocument/completion. (The FIM windows are built by context.h.)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "server/lsp/protocol.h"

namespace wafer {

// The suggestion as inline completion items (none when text is empty), inserted at the
// cursor: range = {cursor, cursor}, on the cursor's line.
lsp::InlineCompletionList inline_completion_result(const std::string& text, const lsp::Position& cursor);
// Several suggestions (for cycling), each an item inserted at the cursor, in order.
lsp::InlineCompletionList inline_completion_result(const std::vector<std::string>& texts, const lsp::Position& cursor);

// The suggestion as one CompletionItem whose textEdit inserts it at the cursor; the label
// is its first line (clients show labels on one line).
lsp::CompletionList completion_result(const std::string& text, const lsp::Position& cursor);

}  // namespace wafer
