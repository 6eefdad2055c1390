// A suggestion caught in a loop within a line or across lines: the same span of text three
// or more times in a row (`addrinfo(addrinfo(addrinfo(`). Data legitimately repeats
// (`0, 0, 0, 0`, `0x00, 0x00, 0x00`, `======`), so a span counts as a loop only when it
// holds a letter and either opens a bracket it does not close or is long enough not to be
// an element of a list; a short list element that is a word (`"w", `) counts from five
// copies, a number or an escape (`0xff, `, `\x00`) never. A short span repeated inside a name
// (`__cplusplusplusplus...`) counts once its copies run 24 bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace wafer {

struct NgramLoop {
  bool found = false;
  size_t begin = 0;   // where the first copy starts
  size_t period = 0;  // the span's length in bytes
};

// The earliest loop in text (the shortest span at that start).
NgramLoop find_ngram_loop(std::string_view text);

// Keeps the text up to the end of the loop's first copy, with trailing whitespace removed;
// an unchanged text without a loop.
std::string cut_ngram_loop(std::string_view text);

}  // namespace wafer
