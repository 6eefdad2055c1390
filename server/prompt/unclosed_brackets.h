// A suggestion that opens a bracket and leaves it open: accepted, it breaks the code after
// the cursor (a truncated call, `addrinfo(` left dangling after a loop was cut). A bracket
// may stay open when the text after the cursor closes it (a suggestion typed inside a call
// whose `)` is already there), so the suffix decides: its closers, in order, close the
// suggestion's openers after its own openers are matched. Brackets inside quotes on the
// suggestion's lines do not count, and nothing is cut in a comment or a string.
#pragma once

#include <string>
#include <string_view>

#include "server/prompt/context.h"

namespace wafer {

// Cuts the suggestion at the last good point before its first bracket that neither the
// suggestion nor the suffix closes: after the last line that ends with every bracket of
// the suggestion closed, else before that bracket (with the whitespace before it).
std::string cut_unclosed_brackets(std::string_view text, const CursorFacts& f);

}  // namespace wafer
