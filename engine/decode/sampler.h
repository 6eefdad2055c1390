// Picks the next token from a row of logits. Greedy (argmax) by default, which is what code
// completion wants; with a temperature > 0 a chain of filters runs in llama.cpp's default
// order: repetition penalty -> top-k -> top-p -> min-p -> temperature -> random draw.
// The generator is seeded, so a (seed, logits, history) triple always gives the same token.
// accept(token) records what was actually emitted (for the repetition penalty), whether it
// came from sample() or from elsewhere (e.g. a prompt token or a verified draft).
#pragma once

#include <cstdint>
#include <deque>
#include <random>
#include <span>
#include <vector>

namespace wafer {

struct SamplerParams {
  float temperature = 0;       // <= 0: greedy
  int top_k = 40;              // <= 0: off
  float top_p = 0.95f;         // >= 1: off
  float min_p = 0.05f;         // <= 0: off (drops tokens below min_p * p(best))
  float repeat_penalty = 1.0f; // 1: off; > 1 penalizes tokens in the last repeat_last_n
  int repeat_last_n = 64;
  uint64_t seed = 0;
};

// The greedy choice: the first index of the largest logit, exactly what a plain
// `if (x[i] > best)` scan from x[0] returns (so a NaN is never chosen, unless x[0] is one,
// and of equal maxima the lowest id wins). Two branch-free passes the compiler vectorizes
// (the maximum in 8 lanes, then the first chunk of 64 holding it), several times faster
// over a full vocabulary than sample()'s candidate list or std::max_element.
// -1 for an empty span.
int32_t greedy_token(std::span<const float> logits);

// log softmax(logits)[token]: the natural log of the token's probability at temperature 1.
// Two passes over the row, no allocation. -inf for a token outside the row.
float token_log_prob(std::span<const float> logits, int32_t token);

// The same, the softmax taken over the tokens of `among` only: the token's probability given
// that the choice is one of them (token healing allows only the tokens that reproduce the
// typed bytes). -inf for a token outside the row or not in `among`.
float token_log_prob_among(std::span<const float> logits, int32_t token, std::span<const int32_t> among);

class Sampler {
 public:
  explicit Sampler(const SamplerParams& params = {});

  // The chosen token id. `logits` is not modified.
  int32_t sample(std::span<const float> logits);
  // The same choice among the `allowed` ids only (token healing); -1 when none is valid.
  // The filters then apply to those candidates alone.
  int32_t sample(std::span<const float> logits, std::span<const int32_t> allowed);
  void accept(int32_t token);
  void reset();  // forgets the history and reseeds

  const SamplerParams& params() const { return params_; }

 private:
  struct Candidate {
    int32_t id;
    float logit;
  };
  void apply_penalty(std::vector<Candidate>& c) const;
  int32_t choose();  // picks among candidates_ (not empty)

  SamplerParams params_;
  std::mt19937_64 rng_;
  std::deque<int32_t> history_;
  std::vector<Candidate> candidates_;  // reused between calls
};

}  // namespace wafer
