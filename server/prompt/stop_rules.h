// Where a suggestion should end. The mode comes first: a cursor followed by text on its
// line, or inside a comment or string, gets a single line (that must fit before that
// text); at the end of a line or on a blank line, a multi-line suggestion that ends
//   - before a line indented less than the cursor's line ("indent_drop"),
//   - after the line that closes the block the cursor opened, unless the suffix already
//     closes it, then before that line ("block_closed", "suffix_closes"),
//   - before a line at the cursor's indentation when the cursor opened a dedent block
//     (python) ("block_closed"),
//   - at a blank line after a complete line outside any bracket ("blank_line"),
//   - before a closing bracket that closes something opened before the cursor when the
//     suffix continues with that same bracket ("unmatched_bracket").
// find_stop() is called with the text so far after every token (the engine's should_stop)
// and once more on the final text; it only reports a stop once it is certain.
#pragma once

#include <cstddef>
#include <string_view>

#include "server/prompt/context.h"

namespace wafer {

enum class Mode { kSingleLine, kMultiLine };

Mode decide_mode(const CursorFacts& f);

struct StopPoint {
  bool stopped = false;
  size_t keep = 0;           // bytes of the text to keep when stopped
  const char* rule = "";     // which rule stopped it
};

StopPoint find_stop(std::string_view text, const CursorFacts& f, Mode mode);

// Indentation width of a line's leading whitespace (a tab counts as 4 columns).
size_t indent_width(std::string_view line);

// The first non-whitespace character after the cursor (rest of line, then the following
// lines), or 0 when there is none.
char next_suffix_char(const CursorFacts& f);

}  // namespace wafer
