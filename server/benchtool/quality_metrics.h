// How close a suggestion's first line comes to the text the user went on to write, as
// bench_quality scores it: exact match, the same first token, and edit similarity.
#pragma once

#include <string_view>

namespace wafer {

// The first lexical token of s after leading blanks: a run of identifier characters
// (ASCII letters, digits, '_', and any byte of a multi-byte UTF-8 character), else the one
// character found there; empty when s is blank.
std::string_view first_lexical_token(std::string_view s);

// 1 - Levenshtein distance / the longer length, over bytes: 1 for equal texts (two empty
// ones included), 0 when nothing lines up.
double edit_similarity(std::string_view a, std::string_view b);

}  // namespace wafer
