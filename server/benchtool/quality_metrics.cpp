#include "server/benchtool/quality_metrics.h"

#include <algorithm>
#include <vector>

namespace wafer {
namespace {

bool identifier_byte(unsigned char c) {
  return c == '_' || c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

}  // namespace

std::string_view first_lexical_token(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = b;
  while (e < s.size() && identifier_byte(static_cast<unsigned char>(s[e]))) ++e;
  return s.substr(b, e > b ? e - b : 1);
}

double edit_similarity(std::string_view a, std::string_view b) {
  const size_t longer = std::max(a.size(), b.size());
  if (longer == 0) return 1.0;
  // One row of the distance table at a time.
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return 1.0 - static_cast<double>(row[b.size()]) / static_cast<double>(longer);
}

std::vector<GateRow> gate_table(const std::vector<GatedPoint>& points, const std::vector<double>& thresholds) {
  std::vector<GateRow> rows;
  for (double t : thresholds) {
    GateRow r;
    r.threshold = t;
    int exact = 0;
    double similarity = 0;
    for (const GatedPoint& p : points) {
      if (!p.shown || (p.confidence >= 0 && p.confidence < t)) continue;
      ++r.shown;
      exact += p.exact;
      similarity += p.similarity;
    }
    if (!points.empty()) r.coverage = static_cast<double>(r.shown) / static_cast<double>(points.size());
    if (r.shown > 0) {
      r.precision = static_cast<double>(exact) / r.shown;
      r.similarity = similarity / r.shown;
    }
    rows.push_back(r);
  }
  return rows;
}

}  // namespace wafer
