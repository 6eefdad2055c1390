// How close a suggestion's first line comes to the text the user went on to write, as
// bench_quality scores it: exact match, the same first token, and edit similarity.
#pragma once

#include <string_view>
#include <vector>

namespace wafer {

// The first lexical token of s after leading blanks: a run of identifier characters
// (ASCII letters, digits, '_', and any byte of a multi-byte UTF-8 character), else the one
// character found there; empty when s is blank.
std::string_view first_lexical_token(std::string_view s);

// 1 - Levenshtein distance / the longer length, over bytes: 1 for equal texts (two empty
// ones included), 0 when nothing lines up.
double edit_similarity(std::string_view a, std::string_view b);

// One suggestion as the confidence gate sees it: the model's confidence in it (-1: not
// reported), whether it had anything to show, and its scores.
struct GatedPoint {
  double confidence = -1;
  bool shown = false;
  bool exact = false;
  double similarity = 0;
};

// What a threshold of the gate gives over a set of points: how many suggestions it still
// shows (coverage, of all points) and how good those are (precision: exact first lines;
// edit similarity), both in [0, 1].
struct GateRow {
  double threshold = 0;
  int shown = 0;
  double coverage = 0;
  double precision = 0;
  double similarity = 0;
};

// One row per threshold; a point with an unknown confidence passes every threshold.
std::vector<GateRow> gate_table(const std::vector<GatedPoint>& points, const std::vector<double>& thresholds);

}  // namespace wafer
