#include "server/prompt/confidence_gate.h"

#include <algorithm>
#include <cmath>

namespace wafer {

Timings::Confidence shown_confidence(const Timings::Confidence& c, std::string_view shown) {
  const size_t kept = static_cast<size_t>(std::min(c.tokens, Timings::Confidence::kKept));
  if (kept == 0) return c;
  const size_t b = shown.find_first_not_of(" \t\r\n");
  const size_t line_end = b == std::string_view::npos ? shown.size() : std::min(shown.find('\n', b), shown.size());
  Timings::Confidence out;
  double sum = 0;
  for (size_t i = 0; i < kept && (i == 0 || c.end[i - 1] < line_end); ++i) {
    const float lp = c.logprob[i];
    out.logprob[i] = lp;
    out.end[i] = c.end[i];
    out.min_logprob = i == 0 ? lp : std::min(out.min_logprob, lp);
    sum += lp;
    ++out.tokens;
  }
  out.mean_logprob = static_cast<float>(sum / out.tokens);
  out.first_prob = c.first_prob;
  return out;
}

double first_line_confidence(const Timings::Confidence& c) {
  if (c.tokens <= 0) return -1;
  return std::exp(static_cast<double>(c.min_logprob));
}

bool below_confidence(const Timings::Confidence& c, double min_confidence) {
  const double p = first_line_confidence(c);
  return min_confidence > 0 && p >= 0 && p < min_confidence;
}

double gate_threshold(double setting, const ModelInfo* model) {
  if (setting >= 0) return setting;
  if (model && model->min_confidence > 0) return model->min_confidence;
  return kDefaultMinConfidence;
}

}  // namespace wafer
