// The context builder: from a document, its syntax tree and the cursor, the FIM prefix and
// suffix the engine sees, plus the facts about the cursor that the completion decisions
// (single/multi-line, stop rules, filters) need.
//
// The windows are measured in (estimated) tokens and cut at whole lines, never inside a
// comment or string token. The prefix start sits on a line whose number is a multiple of
// `prefix_step_lines`, the earliest such line that fits the budgets; so while the user
// types, the start stays where it was (and the engine's KV cache keeps matching the whole
// prompt up to the cursor) until the window is full, then jumps a whole step forward.
// The suffix is short: the rest of the cursor's line and the lines after it up to the end
// of the enclosing block (a block ending on the cursor's line counts as its parent).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "engine/engine.h"
#include "grammars/language_rules.h"
#include "server/document/documents.h"

struct TSTree;

namespace wafer {

struct FimWindow {
  int prefix_tokens = 1024;    // budget for the prefix (estimated tokens)
  int suffix_tokens = 256;     // budget for the suffix
  int prefix_lines = 60;       // whole lines before the cursor's line, at most
  int suffix_lines = 20;       // whole lines after the cursor's line, at most
  int prefix_step_lines = 16;  // the prefix starts on a multiple of this line number
  size_t max_bytes = 16384;    // cap on each of prefix and suffix
  // For a model with a copy predictor (engine/decode/copy_predictor.h): this much more of the document on
  // each side of the window goes in CompletionRequest::copy_before/copy_after (0: none).
  size_t copy_bytes = 0;
};

// copy_bytes for a model whose ModelInfo::copy_strength is on.
inline constexpr size_t kCopyBytes = 65536;

// Shrinks the budgets so that extra context + prefix + suffix + the answer fit the model's
// context window, with a margin for the token estimate's error and the template's special
// tokens: extra context takes at most a quarter and the suffix a fifth of what is left,
// the prefix the rest. context_length <= 0: unknown, nothing changes.
void fit_to_context(FimWindow& w, int& extra_tokens, int context_length, int max_tokens);

// The model's context in estimated tokens (server/token_estimate.h), for fit_to_context: its
// context_length, scaled down when its tokenizer makes more tokens of kTokenDensitySample
// than the estimate's margin covers (a byte-level vocabulary makes ~3 times as many; Qwen's
// about as many as estimated, and nothing changes). Otherwise the
// windows overflow the context, the engine drops the extra context to fit, and whether it
// does flips with the suffix's length from keystroke to keystroke: each flip changes the
// prompt's start, and the whole prompt is prefilled again.
int estimated_context(const ModelInfo& model);

// What the completion decisions need to know about the cursor.
struct CursorFacts {
  std::string line_head;     // the cursor line before the cursor
  std::string line_rest;     // the cursor line after the cursor (no line break)
  std::string indent;        // leading whitespace of the cursor line
  std::string after_lines;   // the lines after the cursor's line, inside the suffix window
  std::string before_lines;  // the lines before the cursor's line, inside the prefix window
  bool in_comment = false;   // the cursor is inside a comment token
  bool in_string = false;    // the cursor is inside a string token
  bool after_opener = false; // the line head ends with a block opener ('{', ':', 'then', ...)
  bool indent_blocks = false;  // the language closes blocks by dedent (python)
  std::string_view brackets = "()[]{}";
  std::string indent_unit = "    ";  // the document's indentation step ("\t", "  ", ...)
};

struct FimContext {
  CompletionRequest request;  // session_key, prefix, suffix (extra context added by the caller)
  size_t prefix_begin = 0;    // the window's byte range in the document
  size_t suffix_end = 0;
  CursorFacts facts;
};

// tree and rules may be null (a language without a grammar): cuts are then by lines only.
FimContext build_context(const Snapshot& s, const TSTree* tree, const grammars::LanguageRules* rules, size_t cursor,
                         const FimWindow& w);

// The document's indentation step: "\t" when most indented lines start with a tab, else
// the most common increase of leading spaces between neighbouring lines (default 4).
std::string detect_indent_unit(const Snapshot& s);

}  // namespace wafer
