// Sampler: greedy by default, seeded randomness, and each filter of the chain.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include "engine/decode/sampler.h"

using namespace wafer;

TEST_CASE("sampler: greedy picks the argmax, lower id on ties", "[sampler]") {
  Sampler s;
  const std::vector<float> logits{0.5f, 2.0f, -1.0f, 2.0f};
  CHECK(s.sample(logits) == 1);
  CHECK(s.sample(logits) == 1);
}

namespace {

// The reference: a plain scan from x[0], replacing only on a strictly larger value.
int32_t scan_argmax(const std::vector<float>& x) {
  size_t best = 0;
  for (size_t i = 1; i < x.size(); ++i)
    if (x[i] > x[best]) best = i;
  return static_cast<int32_t>(best);
}

}  // namespace

TEST_CASE("sampler: greedy_token is the plain scan's argmax on every shape of input", "[sampler]") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  int checked = 0;
  for (size_t n : {size_t{1}, size_t{2}, size_t{7}, size_t{8}, size_t{9}, size_t{15}, size_t{16}, size_t{17},
                   size_t{33}, size_t{1000}, size_t{151936}}) {
    for (int variant = 0; variant < 8; ++variant) {
      std::vector<float> x(n);
      for (float& v : x) v = normal(rng);
      std::uniform_int_distribution<size_t> pos(0, n - 1);
      switch (variant) {
        case 0: break;
        case 1: x[pos(rng)] = 9.0f; x[pos(rng)] = 9.0f; break;  // a tie of maxima (lowest index wins)
        case 2: x[0] = nan; break;                              // NaN first: the scan stays at 0
        case 3: for (int k = 0; k < 5; ++k) x[pos(rng)] = nan; x[0] = -1.0f; break;  // NaNs never win
        case 4: for (float& v : x) v = -inf; x[pos(rng)] = -0.0f; x[pos(rng)] = 0.0f; break;  // +0 == -0
        case 5: x[pos(rng)] = inf; x[pos(rng)] = inf; break;
        case 6: for (float& v : x) v = -inf; break;             // all equal
        case 7: for (float& v : x) v = static_cast<float>(static_cast<int>(v * 2));  break;  // many ties
      }
      INFO("n " << n << " variant " << variant);
      CHECK(greedy_token(x) == scan_argmax(x));
      Sampler s;  // greedy by default: the same token
      CHECK(s.sample(x) == scan_argmax(x));
      ++checked;
    }
  }
  CHECK(checked == 88);
  CHECK(greedy_token({}) == -1);
}

TEST_CASE("sampler: temperature sampling is seeded and follows the distribution", "[sampler]") {
  SamplerParams p;
  p.temperature = 1.0f;
  p.top_k = 0;
  p.top_p = 1.0f;
  p.min_p = 0;
  p.seed = 42;
  const std::vector<float> logits{0.0f, std::log(3.0f)};  // p = 1/4, 3/4
  Sampler a(p), b(p);
  std::map<int, int> counts;
  std::vector<int> seq_a, seq_b;
  for (int i = 0; i < 4000; ++i) {
    seq_a.push_back(a.sample(logits));
    seq_b.push_back(b.sample(logits));
    ++counts[seq_a.back()];
  }
  CHECK(seq_a == seq_b);  // same seed, same tokens
  CHECK(counts[1] > 2800);
  CHECK(counts[1] < 3200);
  a.reset();
  CHECK(a.sample(logits) == seq_a[0]);  // reset reseeds
}

TEST_CASE("sampler: top-k, top-p and min-p cut the tail", "[sampler]") {
  const std::vector<float> logits{3.0f, 2.9f, 0.0f, -5.0f, 2.95f};
  SamplerParams p;
  p.temperature = 5.0f;  // flattens: without filters every token would show up
  p.top_p = 1.0f;
  p.min_p = 0;
  p.top_k = 2;
  Sampler k(p);
  for (int i = 0; i < 300; ++i) {
    const int t = k.sample(logits);
    CHECK((t == 0 || t == 4));
  }
  p.top_k = 0;
  p.top_p = 0.5f;  // token 0 alone has ~35% at temperature 1, 0 + 4 ~68%
  Sampler tp(p);
  for (int i = 0; i < 300; ++i) {
    const int t = tp.sample(logits);
    CHECK((t == 0 || t == 4));
  }
  p.top_p = 1.0f;
  p.min_p = 0.5f;  // keeps tokens with p >= 0.5 p(best): 0, 4, 1
  Sampler mp(p);
  std::map<int, int> seen;
  for (int i = 0; i < 600; ++i) ++seen[mp.sample(logits)];
  CHECK(seen.count(2) == 0);
  CHECK(seen.count(3) == 0);
  CHECK(seen.size() == 3);
}

TEST_CASE("sampler: repetition penalty applies to accepted tokens", "[sampler]") {
  SamplerParams p;
  p.repeat_penalty = 2.0f;
  p.repeat_last_n = 2;
  Sampler s(p);
  const std::vector<float> logits{1.0f, 1.5f, -0.5f};
  CHECK(s.sample(logits) == 1);
  s.accept(1);  // 1.5 -> 0.75 < 1.0
  CHECK(s.sample(logits) == 0);
  s.accept(0);  // both penalized: 0.5 vs 0.75
  CHECK(s.sample(logits) == 1);
  s.accept(2);
  s.accept(2);  // window of 2: tokens 0 and 1 fall out
  CHECK(s.sample(logits) == 1);
}

TEST_CASE("sampler: a restricted choice never leaves the allowed ids", "[sampler]") {
  const std::vector<float> logits{5.0f, 1.0f, 0.9f, 4.0f, 1.0f};
  Sampler greedy;
  CHECK(greedy.sample(logits, std::vector<int32_t>{1, 2, 4}) == 1);  // the best allowed; lower id on ties
  CHECK(greedy.sample(logits, std::vector<int32_t>{2}) == 2);
  CHECK(greedy.sample(logits, std::vector<int32_t>{}) == -1);
  CHECK(greedy.sample(logits, std::vector<int32_t>{-1, 9}) == -1);  // ids outside the row are ignored
  SamplerParams p;
  p.temperature = 2.0f;
  p.top_k = 0;
  p.top_p = 1.0f;
  p.min_p = 0;
  p.seed = 7;
  Sampler hot(p);
  std::map<int, int> counts;
  for (int i = 0; i < 2000; ++i) ++counts[hot.sample(logits, std::vector<int32_t>{1, 2, 4})];
  CHECK(counts.size() == 3);  // all three drawn, nothing else
  CHECK(counts.count(0) == 0);
  CHECK(counts.count(3) == 0);
}

TEST_CASE("sampler: token_log_prob is the log softmax of the chosen token", "[sampler]") {
  const std::vector<float> logits = {1.0f, 2.0f, 3.0f};
  const double sum = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  CHECK(token_log_prob(logits, 2) == Approx(3.0 - std::log(sum)).epsilon(1e-5));
  CHECK(token_log_prob(logits, 0) == Approx(1.0 - std::log(sum)).epsilon(1e-5));
  // Shifting every logit changes nothing; a large row does not overflow.
  const std::vector<float> shifted = {1001.0f, 1002.0f, 1003.0f};
  CHECK(token_log_prob(shifted, 2) == Approx(token_log_prob(logits, 2)).epsilon(1e-4));
  CHECK(std::isinf(token_log_prob(logits, 3)));
  CHECK(std::isinf(token_log_prob(logits, -1)));
}

TEST_CASE("sampler: token_log_prob_among renormalizes over the allowed tokens", "[sampler]") {
  const std::vector<float> logits = {1.0f, 2.0f, 3.0f, 0.5f};
  const std::vector<int32_t> among = {0, 3};
  const double sum = std::exp(1.0) + std::exp(0.5);
  CHECK(token_log_prob_among(logits, 0, among) == Approx(1.0 - std::log(sum)).epsilon(1e-5));
  CHECK(token_log_prob_among(logits, 3, among) == Approx(0.5 - std::log(sum)).epsilon(1e-5));
  // Given the allowed set, a token is likelier than in the whole row.
  CHECK(token_log_prob_among(logits, 0, among) > token_log_prob(logits, 0));
  // The only allowed token is certain; a token outside the set or the row has no probability.
  const std::vector<int32_t> one = {1};
  CHECK(token_log_prob_among(logits, 1, one) == Approx(0.0).margin(1e-6));
  CHECK(std::isinf(token_log_prob_among(logits, 2, among)));
  CHECK(std::isinf(token_log_prob_among(logits, 7, among)));
  const std::vector<int32_t> with_bad = {0, 9, -2, 3};
  CHECK(token_log_prob_among(logits, 3, with_bad) == Approx(0.5 - std::log(sum)).epsilon(1e-5));
}
