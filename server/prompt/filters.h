// Post-processing of a suggestion before it is shown: each known failure mode of inline
// completion (loops within a line or over lines, duplicated suffix or closing brackets,
// repeating the next lines, brackets left open, trailing whitespace, whitespace-only
// results, foreign indentation) is one small named function (the degenerate-text ones in
// files of their own: ngram_loop.h, repeated_lines.h, unclosed_brackets.h);
// postprocess() runs the stop rules and then all of them in order, and reports which ones
// changed something (for wafer/stats).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/prompt/context.h"
#include "server/prompt/stop_rules.h"

namespace wafer {

// Removes trailing spaces and tabs from every line and trailing blank lines.
std::string trim_trailing_whitespace(std::string_view text);

// True when the text has nothing but whitespace.
bool is_whitespace_only(std::string_view text);

// Cuts the suggestion before its first line that repeats the next non-blank line after the
// cursor (compared without surrounding whitespace; the first line is compared together
// with the text before the cursor). Empty when its first line is already a repeat.
std::string cut_repeated_following_lines(std::string_view text, const CursorFacts& f);

// Single-line suggestions end before the text already after the cursor: removes a tail
// that equals that text, or a tail of closing brackets/punctuation it begins with.
std::string strip_duplicated_line_rest(std::string_view text, const CursorFacts& f);

// Removes closing brackets at the end of the suggestion that close what was opened before
// the cursor when the suffix continues with the same brackets.
std::string drop_closers_in_suffix(std::string_view text, const CursorFacts& f);

// Re-indents lines after the first to the document's style: tabs vs spaces.
std::string normalize_indentation(std::string_view text, const CursorFacts& f);

struct Postprocessed {
  std::string text;
  std::vector<std::string> fired;  // names of the rules and filters that changed the text
};

Postprocessed postprocess(std::string_view raw, const CursorFacts& f, Mode mode);

}  // namespace wafer
