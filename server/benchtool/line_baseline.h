// The trivial baseline bench_quality compares the model with: "repeat the most similar
// earlier line". Among the lines above the cursor's that start with what is typed on the
// cursor's line and go on past it, take the one whose preceding line is most like the
// line above the cursor (edit similarity; ties: the nearest), and predict its rest.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wafer {

// lines: the file's lines (without their newlines); row, col: the cursor, col a byte
// offset into lines[row]. Empty when no earlier line fits.
std::string nearest_line_baseline(const std::vector<std::string_view>& lines, size_t row, size_t col);

}  // namespace wafer
