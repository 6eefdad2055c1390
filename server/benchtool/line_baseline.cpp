#include "server/benchtool/line_baseline.h"

#include "server/benchtool/quality_metrics.h"

namespace wafer {

std::string nearest_line_baseline(const std::vector<std::string_view>& lines, size_t row, size_t col) {
  if (row == 0 || row >= lines.size()) return {};
  const std::string_view typed = lines[row].substr(0, col);
  const std::string_view above = lines[row - 1];
  std::string_view best;
  double best_score = -1;
  for (size_t k = row - 1; k >= 1; --k) {
    const std::string_view candidate = lines[k];
    if (candidate.size() <= typed.size() || !candidate.starts_with(typed)) continue;
    const std::string_view rest = candidate.substr(typed.size());
    if (rest.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const double score = edit_similarity(lines[k - 1], above);
    if (score > best_score) {
      best = rest;
      best_score = score;
    }
  }
  return std::string(best);
}

}  // namespace wafer
