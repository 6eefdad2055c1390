// Degenerate text in a shown suggestion, checked by bench_quality apart from the filters
// that should have removed it (server/prompt/repeated_lines.h, ngram_loop.h): written
// separately and more plainly, so that the benchmark catches what the filters miss.
#pragma once

#include <string_view>

namespace wafer {

// A line of the text before the cursor that the suggestion writes twice or more. Lines are
// compared without leading or trailing whitespace (`#  endif` and `# endif` differ); the suggestion's first line is read together with the head of the cursor's
// line; a line counts when it has 5 or more letters, digits or underscores.
bool repeats_prefix_line(std::string_view before_cursor, std::string_view suggestion);

// A span of 2 to 96 bytes that holds a letter, written three times in a row, when the span
// is 8 bytes or longer or opens more brackets than it closes (`addrinfo(addrinfo(...`).
// Lists of short items (`0, 0, 0`, `"a", "a", "a"`) do not count.
bool loops_span(std::string_view suggestion);

}  // namespace wafer
