#include "engine/decode/speculative.h"

#include <algorithm>

namespace wafer {

PromptLookup::PromptLookup(const DraftParams& params) : params_(params), k_(std::min(4, params.max_draft)) {}

std::vector<int32_t> PromptLookup::propose(std::span<const int32_t> history, int limit) const {
  const int want = std::min(k_, limit);
  if (want <= 0 || params_.min_ngram <= 0) return {};
  const int64_t size = static_cast<int64_t>(history.size());
  for (int n = params_.max_ngram; n >= params_.min_ngram; --n) {
    if (size <= n) continue;
    const int32_t* tail = history.data() + size - n;
    // Latest match first (nearby code is the best predictor); the match must leave at
    // least one token after it, and must not be the tail itself.
    for (int64_t i = size - n - 1; i >= 0; --i) {
      if (history[static_cast<size_t>(i)] != tail[0] || !std::equal(tail, tail + n, history.data() + i)) continue;
      const int64_t from = i + n;
      const int64_t to = std::min<int64_t>(from + want, size);
      return std::vector<int32_t>(history.begin() + from, history.begin() + to);
    }
  }
  return {};
}

void PromptLookup::record(int proposed, int accepted) {
  if (proposed <= 0) return;
  if (accepted == proposed) {
    k_ = std::min(k_ + 2, params_.max_draft);
  } else if (2 * accepted < proposed) {
    k_ = std::max(k_ / 2, 1);
  }
}

}  // namespace wafer
