#include "engine/decode/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace wafer {

int32_t greedy_token(std::span<const float> logits) {
  const size_t n = logits.size();
  if (n == 0) return -1;
  const float* x = logits.data();
  if (x[0] != x[0]) return 0;  // NaN first: a scan never moves past it
  // Pass 1: the largest non-NaN value (x > m ? x : m keeps m for a NaN x; it is maxps).
  constexpr size_t kLanes = 8;
  float lane[kLanes];
  for (float& m : lane) m = x[0];
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (size_t j = 0; j < kLanes; ++j) lane[j] = x[i + j] > lane[j] ? x[i + j] : lane[j];
  float best = x[0];
  for (; i < n; ++i) best = x[i] > best ? x[i] : best;
  for (float m : lane) best = m > best ? m : best;
  // Pass 2: its first index (+0 and -0 compare equal, as they do in the scan), looking
  // inside a chunk of 64 only once a branch-free test says it holds the value.
  constexpr size_t kChunk = 64;
  size_t k = 0;
  for (; k + kChunk <= n; k += kChunk) {
    int hits = 0;
    for (size_t j = 0; j < kChunk; ++j) hits += x[k + j] == best;
    if (hits != 0) break;
  }
  for (; k < n; ++k)
    if (x[k] == best) return static_cast<int32_t>(k);
  return 0;  // not reached: best is one of the values
}

float token_log_prob(std::span<const float> logits, int32_t token) {
  if (token < 0 || static_cast<size_t>(token) >= logits.size()) return -std::numeric_limits<float>::infinity();
  float max = logits[0];
  for (float x : logits) max = x > max ? x : max;
  double sum = 0;
  for (float x : logits) sum += std::exp(static_cast<double>(x - max));
  return static_cast<float>(logits[static_cast<size_t>(token)] - max - std::log(sum));
}

float token_log_prob_among(std::span<const float> logits, int32_t token, std::span<const int32_t> among) {
  const float none = -std::numeric_limits<float>::infinity();
  if (token < 0 || static_cast<size_t>(token) >= logits.size()) return none;
  bool present = false;
  float max = none;
  for (int32_t t : among) {
    if (t < 0 || static_cast<size_t>(t) >= logits.size()) continue;
    present = present || t == token;
    max = std::max(max, logits[static_cast<size_t>(t)]);
  }
  if (!present) return none;
  double sum = 0;
  for (int32_t t : among)
    if (t >= 0 && static_cast<size_t>(t) < logits.size()) sum += std::exp(static_cast<double>(logits[static_cast<size_t>(t)] - max));
  return static_cast<float>(logits[static_cast<size_t>(token)] - max - std::log(sum));
}

Sampler::Sampler(const SamplerParams& params) : params_(params), rng_(params.seed) {}

void Sampler::reset() {
  history_.clear();
  rng_.seed(params_.seed);
}

void Sampler::accept(int32_t token) {
  if (params_.repeat_last_n <= 0) return;
  history_.push_back(token);
  while (history_.size() > static_cast<size_t>(params_.repeat_last_n)) history_.pop_front();
}

void Sampler::apply_penalty(std::vector<Candidate>& c) const {
  if (params_.repeat_penalty == 1.0f || history_.empty()) return;
  std::unordered_set<int32_t> seen(history_.begin(), history_.end());
  for (Candidate& x : c) {
    if (!seen.count(x.id)) continue;
    // As llama.cpp: shrink positive logits, push negative ones further down.
    x.logit = x.logit > 0 ? x.logit / params_.repeat_penalty : x.logit * params_.repeat_penalty;
  }
}

int32_t Sampler::sample(std::span<const float> logits) {
  // Greedy without a penalty to apply: no candidate list needed.
  if (params_.temperature <= 0 && (params_.repeat_penalty == 1.0f || history_.empty())) return greedy_token(logits);
  candidates_.resize(logits.size());
  for (size_t i = 0; i < logits.size(); ++i) candidates_[i] = {static_cast<int32_t>(i), logits[i]};
  return choose();
}

int32_t Sampler::sample(std::span<const float> logits, std::span<const int32_t> allowed) {
  candidates_.clear();
  for (int32_t id : allowed)
    if (id >= 0 && static_cast<size_t>(id) < logits.size()) candidates_.push_back({id, logits[static_cast<size_t>(id)]});
  if (candidates_.empty()) return -1;
  return choose();
}

int32_t Sampler::choose() {
  apply_penalty(candidates_);
  auto by_logit = [](const Candidate& a, const Candidate& b) {
    return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
  };
  if (params_.temperature <= 0) return std::min_element(candidates_.begin(), candidates_.end(), by_logit)->id;

  // top-k (a partial sort keeps this cheap for a 150k vocabulary).
  size_t keep = candidates_.size();
  if (params_.top_k > 0) keep = std::min(keep, static_cast<size_t>(params_.top_k));
  std::partial_sort(candidates_.begin(), candidates_.begin() + static_cast<std::ptrdiff_t>(keep),
                    candidates_.end(), by_logit);
  candidates_.resize(keep);

  // Probabilities at temperature 1 for top-p / min-p (llama.cpp filters before scaling).
  std::vector<double> p(keep);
  const double max = candidates_[0].logit;
  double sum = 0;
  for (size_t i = 0; i < keep; ++i) sum += p[i] = std::exp(candidates_[i].logit - max);
  if (params_.top_p < 1.0f) {
    double cum = 0;
    size_t n = 0;
    while (n < keep) {
      cum += p[n++] / sum;
      if (cum >= params_.top_p) break;
    }
    keep = std::max<size_t>(n, 1);
  }
  if (params_.min_p > 0) {
    size_t n = 1;
    while (n < keep && p[n] >= params_.min_p * p[0]) ++n;
    keep = n;
  }
  candidates_.resize(keep);

  // Temperature, then draw.
  std::vector<double> w(keep);
  const double top = candidates_[0].logit / params_.temperature;
  for (size_t i = 0; i < keep; ++i) w[i] = std::exp(candidates_[i].logit / params_.temperature - top);
  std::discrete_distribution<size_t> pick(w.begin(), w.end());
  return candidates_[pick(rng_)].id;
}

}  // namespace wafer
