#include "engine/decode/copy_predictor.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/gguf/gguf.h"

namespace wafer {

float model_copy_strength(const GgufFile& file) {
  auto c = file.get_f32(kCopyStrengthKey);
  return c.ok() && std::isfinite(*c) && *c > 0 ? *c : 0.0f;
}

void CopyPredictor::reset(std::span<const TokenId> stream) {
  stream_.assign(stream.begin(), stream.end());
  last_match_ = 0;
}

void CopyPredictor::push(TokenId token) { stream_.push_back(token); }

bool CopyPredictor::mix(std::span<const float> logits, std::vector<float>& out) {
  last_match_ = 0;
  const size_t n = stream_.size();
  if (!enabled() || n < 2 || logits.empty()) return false;
  // Longest repeat: for every earlier end j, how many tokens before it agree with the end.
  const size_t cap = static_cast<size_t>(std::max(1, params_.max_match));
  size_t best = 0;
  follow_.clear();
  for (size_t j = 0; j + 1 < n; ++j) {
    size_t len = 0;
    while (len <= j && len < cap && stream_[j - len] == stream_[n - 1 - len]) ++len;
    if (len == 0 || len < best) continue;
    if (len > best) {
      best = len;
      follow_.clear();
    }
    follow_.push_back(stream_[j + 1]);
  }
  if (best < static_cast<size_t>(std::max(1, params_.min_match))) return false;
  last_match_ = static_cast<int>(best);

  const float w = static_cast<float>(best) / (static_cast<float>(best) + params_.strength);
  float top = -std::numeric_limits<float>::infinity();
  for (float l : logits) top = std::max(top, l);
  double sum = 0;
  for (float l : logits) sum += std::exp(static_cast<double>(l - top));
  const float log_norm = top + static_cast<float>(std::log(sum));
  out.resize(logits.size());
  const float keep = std::log1p(-w);  // log(1 - w)
  for (size_t i = 0; i < logits.size(); ++i) out[i] = logits[i] - log_norm + keep;
  // Each repeat's next token gets w / (number of repeats); others keep (1 - w) p.
  const float share = w / static_cast<float>(follow_.size());
  std::sort(follow_.begin(), follow_.end());
  for (size_t i = 0; i < follow_.size();) {
    size_t k = i;
    while (k < follow_.size() && follow_[k] == follow_[i]) ++k;
    const TokenId t = follow_[i];
    if (t >= 0 && static_cast<size_t>(t) < out.size()) {
      const float p_net = std::exp(out[static_cast<size_t>(t)]);
      out[static_cast<size_t>(t)] = std::log(p_net + share * static_cast<float>(k - i));
    }
    i = k;
  }
  return true;
}

}  // namespace wafer
