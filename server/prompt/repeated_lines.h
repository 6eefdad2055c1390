// A suggestion that writes the same line over and over: small models, and large ones at
// times, fall into repeating a line they just wrote or one of the lines above the cursor.
// A line counts when it says something (not a lone bracket, `else:` or `break;`); lines are
// compared with runs of whitespace taken as one space, the first one together with the
// text before the cursor.
#pragma once

#include <string>
#include <string_view>

#include "server/prompt/context.h"

namespace wafer {

// Cuts the suggestion before the second copy of a line that it repeats more than once:
// a line of the prefix written twice, or a line of its own written three times. The first
// copy stays; an unchanged text when nothing repeats.
std::string cut_repeated_lines(std::string_view text, const CursorFacts& f);

}  // namespace wafer
