#include "engine/decode/speculation/prompt_lookup.h"

#include <algorithm>

namespace wafer {

PromptLookup::PromptLookup(const DraftParams& params) : params_(params), length_(params.max_draft) {}

std::vector<int32_t> PromptLookup::propose(std::span<const int32_t> history, int limit) const {
  const int want = std::min(length_.get(), limit);
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

}  // namespace wafer
