// The draft length: by acceptance alone while no costs are known, then the length expected
// to give the most tokens per millisecond.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/decode/speculation/draft_length.h"

using namespace wafer;

namespace {

// Rounds of drafting where drafted token i is accepted when accept(i) says so (i counts
// every token looked at, over all rounds), a draft token costs draft_ms and a pass of n
// tokens a + b (n - 1) ms. Returns the length after them.
template <class Accept>
int run(DraftLength& len, int rounds, Accept accept, double draft_ms, double a, double b) {
  long i = 0;
  for (int r = 0; r < rounds; ++r) {
    const int k = len.get();
    if (k == 0) {  // paused: the model decodes this step alone
      len.skipped();
      continue;
    }
    int accepted = 0;
    while (accepted < k && accept(i++)) ++accepted;
    len.record(k, accepted);
    len.record_costs(k, k * draft_ms, a + b * k);
  }
  return len.best();
}

bool seventy(long i) { return i % 10 != 2 && i % 10 != 5 && i % 10 != 8; }  // 7 of 10

// The best length by brute force over the same model (acceptance p, costs as above).
int best_length(double p, double draft_ms, double a, double b, int max) {
  int best = 1;
  double best_rate = 0;
  for (int k = 1; k <= max; ++k) {
    double expected = 0;
    for (int j = 0; j <= k; ++j) expected += std::pow(p, j);
    const double rate = expected / (k * draft_ms + a + b * k);
    if (rate > best_rate) best_rate = rate, best = k;
  }
  return best;
}

}  // namespace

TEST_CASE("draft length: a cheap draft that is always accepted grows to the most", "[speculative]") {
  DraftLength len(8);
  CHECK(run(len, 40, [](long) { return true; }, 2, 100, 10) == 8);
  CHECK(len.acceptance() > 0.95);
}

TEST_CASE("draft length: a costly draft stays short at 70 % acceptance", "[speculative]") {
  // A 0.5B draft next to a 1.5B model on two cores: a third of its step per token.
  DraftLength len(8);
  const int k = run(len, 60, seventy, 28, 70, 10);
  CHECK(len.acceptance() == Approx(0.7).margin(0.08));
  CHECK(k == best_length(len.acceptance(), 28, 70, 10, 8));
  CHECK(k <= 2);
  // Next to a model twelve times its cost (7B), the same acceptance pays for longer drafts.
  DraftLength big(8);
  const int k7 = run(big, 60, seventy, 28, 800, 40);
  CHECK(k7 == best_length(big.acceptance(), 28, 800, 40, 8));
  CHECK(k7 >= 4);
}

TEST_CASE("draft length: a draft the model rejects is kept at one token", "[speculative]") {
  DraftLength len(8);
  CHECK(run(len, 30, [](long i) { return i % 10 == 0; }, 28, 70, 10) == 1);
  CHECK(len.acceptance() < 0.3);
  // ...and grows again when the text turns to what the draft knows (the rounds in
  // between are paused steps but for one probe in kProbeEvery: see below).
  CHECK(run(len, 240, [](long) { return true; }, 28, 70, 10) > 1);
}

namespace {

// Decode steps as completion_run takes them: a draft of get() tokens when it is not 0
// (accepted while accept(i) says so, i counting every drafted token looked at), else a
// plain step of step_ms. Costs as in run(). Returns the steps that drafted.
template <class Accept>
int steps(DraftLength& len, int n, Accept accept, long& i, double draft_ms, double a, double b, double step_ms) {
  int drafted = 0;
  for (int s = 0; s < n; ++s) {
    const int k = len.get();
    if (k == 0) {
      len.skipped();
      len.record_step(step_ms);
      continue;
    }
    ++drafted;
    int accepted = 0;
    while (accepted < k && accept(i++)) ++accepted;
    len.record(k, accepted);
    len.record_costs(k, k * draft_ms, a + b * k);
  }
  return drafted;
}

}  // namespace

TEST_CASE("draft length: drafting pauses while the model alone is faster, probing one step in eight",
          "[speculative]") {
  // A 0.5B draft next to a 1.5B model (0.4 of its step per token) that the model rejects:
  // every draft costs more than it gains, so after a few rounds only probes draft.
  DraftLength len(8);
  long i = 0;
  steps(len, 16, [](long) { return false; }, i, 28, 70, 10, 70);
  CHECK(len.paused());
  const int probes = steps(len, 80, [](long) { return false; }, i, 28, 70, 10, 70);
  CHECK(probes == 80 / DraftLength::kProbeEvery);
  // The text turns to what the draft knows: the first accepted probe resumes drafting.
  int drafted = 0, r = 0;
  for (; r < 200 && len.paused(); ++r) drafted += steps(len, 1, [](long) { return true; }, i, 28, 70, 10, 70);
  CHECK_FALSE(len.paused());
  CHECK(r <= DraftLength::kProbeEvery);
  CHECK(drafted == 1);
  CHECK(steps(len, 8, [](long) { return true; }, i, 28, 70, 10, 70) == 8);
  CHECK(len.get() >= 1);
}

TEST_CASE("draft length: a draft that pays is never paused", "[speculative]") {
  // 70 % acceptance next to a model twelve times the draft's cost, and a 1.5B model's
  // draft at 70 % (1.2-1.3x by the costs): both beat the model alone.
  for (double a : {800.0, 70.0}) {
    DraftLength len(8);
    long i = 0;
    CHECK(steps(len, 60, seventy, i, 28, a, a / 20, a) == 60);
    CHECK_FALSE(len.paused());
  }
  // Seven drafts in a row rejected, then 70 % again: the acceptance seen drops below what
  // pays, but a run that short does not pause the draft.
  DraftLength len(8);
  long i = 0;
  CHECK(steps(len, 20, seventy, i, 28, 70, 3.5, 70) == 20);
  CHECK(steps(len, DraftLength::kPauseAfter - 1, [](long) { return false; }, i, 28, 70, 3.5, 70) ==
        DraftLength::kPauseAfter - 1);
  CHECK(len.acceptance() < 0.5);
  CHECK(steps(len, 20, seventy, i, 28, 70, 3.5, 70) == 20);
}

TEST_CASE("draft length: the verification line is fitted from the pass sizes seen", "[speculative]") {
  // Passes of 2 and 5 tokens on a line with a steep row cost: 40 + 30 (n - 1) ms. A cheap,
  // always accepted draft still stops where a row costs more than it gains.
  DraftLength len(8);
  for (int r = 0; r < 20; ++r) {
    len.record(1, 1);
    len.record_costs(1, 1, 40 + 30 * 1);
    len.record(4, 4);
    len.record_costs(4, 4, 40 + 30 * 4);
  }
  CHECK(len.best() == best_length(len.acceptance(), 1, 40, 30, 8));
}

TEST_CASE("draft length: one round in eight drafts a token more, and learns what it costs", "[speculative]") {
  // A draft whose first token costs 30 ms and each later one 5 (its weights still in
  // cache): after rounds of one token, the exploring rounds of two show the cheaper
  // later tokens, and the length grows past what a constant 30 ms per token would allow.
  DraftLength len(8);
  int longer = 0;
  for (int r = 0; r < 64; ++r) {
    const int k = len.get();
    longer += k > len.best();
    int accepted = 0;
    for (int i = 0; i < k && (r * 8 + i) % 10 != 9; ++i) ++accepted;  // ~90 %
    len.record(k, accepted);
    len.record_costs(k, 30 + 5 * (k - 1), 70 + 5 * k);
  }
  CHECK(longer >= 2);  // (none once the best is the most)
  CHECK(len.best() > best_length(len.acceptance(), 30, 70, 5, 8));
}

TEST_CASE("draft length: costs that are not times are ignored", "[speculative]") {
  DraftLength len(8);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  len.record_costs(4, nan, 50);
  len.record_costs(4, 10, 0);
  len.record_costs(4, -1, 50);
  len.record_costs(0, 10, 50);
  len.record(4, 4);  // still by acceptance alone: +2
  CHECK(len.get() == 6);
  DraftLength off(0);
  off.record(1, 1);
  off.record_costs(1, 1, 10);
  CHECK(off.get() == 0);
}

TEST_CASE("draft length: the saving per token follows the costs, 0 where drafting does not pay", "[speculative]") {
  DraftLength unknown(8);
  CHECK(unknown.saving_per_token_ms() == -1);  // no costs recorded yet
  unknown.record(4, 4);
  CHECK(unknown.saving_per_token_ms() == -1);  // acceptance alone says nothing of time
  // Always accepted, a draft token 1 ms, a pass of n tokens 10 + 0.5 (n - 1) ms, the model
  // alone 10 ms a token: the best length gives more than a token per 10 ms.
  DraftLength cheap(8);
  for (int r = 0; r < 40; ++r) {
    cheap.record_step(10);
    const int k = cheap.get();
    cheap.record(k, k);
    cheap.record_costs(k, k * 1.0, 10 + 0.5 * k);
  }
  REQUIRE(cheap.best() == 8);
  // At most all 9 tokens of a round for 8 + 14 ms (2.44 ms a token: a saving of 7.56 ms);
  // the acceptance seen is a little under 1 (its prior), so a little less.
  CHECK(cheap.saving_per_token_ms() <= 10 - 22.0 / 9 + 1e-9);
  CHECK(cheap.saving_per_token_ms() > 6);
  // Never accepted: nothing to save.
  DraftLength rejected(8);
  for (int r = 0; r < 40; ++r) {
    rejected.record_step(10);
    const int n = std::max(1, rejected.get());
    rejected.record(n, 0);
    rejected.record_costs(n, n * 1.0, 10 + 0.5 * n);
  }
  CHECK(rejected.saving_per_token_ms() == 0);
}
