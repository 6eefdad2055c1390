// How many tokens a speculative draft should be. Every drafted token costs a row of the
// verification batch (and, for a draft model, a forward pass of its own), so the length
// follows how drafts have been faring. Shared by prompt lookup and the draft model, each
// keeping its own.
//
// With no costs recorded (prompt lookup, whose drafts cost next to nothing), the length
// grows while drafts are accepted whole and halves when most of a draft is rejected.
// Once a drafter records what its drafts and their verification cost (a draft model, whose
// every token is a forward pass of its own), the length is the one expected to give the
// most tokens per millisecond: a draft of k tokens, each accepted with probability p (the
// share of drafted tokens the model accepted where it looked at them, recent rounds
// counting most), yields 1 + p + ... + p^k tokens for the time of a draft of k tokens plus
// one pass of the model over k + 1 tokens, each a line fitted to the rounds seen (a draft's
// later tokens can cost less than its first: the drafter's weights are still in cache). A
// draft that costs a good part of the model's step is then kept short unless most of it is
// accepted, and a cheap one grows. Every kExploreEvery-th round drafts one token more than
// the best, so that the lines learn the cost of longer drafts too.
//
// When no length is expected to beat the model decoding alone (one token per step, the
// step's time measured on the model's plain one-token passes) and the model has rejected
// the first token of the last kPauseAfter drafts, drafting pauses: get() is 0, and only
// one step in kProbeEvery drafts a token. The first probe the model accepts resumes
// drafting. A draft the model keeps rejecting then costs a probe's share of the time
// instead of a draft every step, while a draft that pays is not paused by a few unlucky
// rounds and comes back at once when the text turns to what it knows.
#pragma once

#include <algorithm>
#include <array>

namespace wafer {

class DraftLength {
 public:
  static constexpr int kMaxLength = 16;  // longest draft the cost model considers
  static constexpr int kExploreEvery = 8;
  static constexpr int kProbeEvery = 8;  // while paused: one step in this many drafts a token
  static constexpr int kPauseAfter = 8;  // drafts rejected from their first token, in a row

  // Starts at min(4, max); max 0 keeps the length at 0 (no drafts).
  explicit DraftLength(int max);

  // The length of the next draft: best(), one more on an exploring round; while paused,
  // 0, or 1 on a probing step.
  int get() const {
    if (paused_) return skipped_ + 1 >= kProbeEvery ? std::min(1, max_) : 0;
    return explore_ ? std::min(k_ + 1, std::min(max_, kMaxLength)) : k_;
  }
  // The length expected to give the most tokens per millisecond (by acceptance alone until
  // costs are recorded), whether or not drafting is paused.
  int best() const { return k_; }
  // Whether drafting pauses because the model alone is expected to be faster.
  bool paused() const { return paused_; }
  // A step the model decoded alone because get() was 0: counts towards the next probe.
  void skipped() { skipped_ += paused_ ? 1 : 0; }
  // The time of one of the model's plain one-token passes (a step without a draft).
  void record_step(double ms);
  // Feeds back how a draft of `proposed` tokens fared.
  void record(int proposed, int accepted);
  // Feeds back what a draft of `proposed` tokens cost to make (draft_ms) and to verify
  // (verify_ms: the model's pass over the proposed tokens and the one before them). Call
  // after record() of the same draft.
  void record_costs(int proposed, double draft_ms, double verify_ms);

  // The acceptance the cost model uses (a prior of 0.5 until drafts are seen).
  double acceptance() const;

  // What drafting at the best length is expected to save per generated token against the
  // model alone, in ms (0 when it is not expected to pay); -1 until costs are recorded.
  double saving_per_token_ms() const { return saving_ms_; }

 private:
  void choose();  // k_: the most tokens per millisecond

  // Times by size x = 0..kMaxLength (decayed sums of counts and ms per size), and the line
  // ms = a + b x fitted to them; with one size seen, b = slope_share * a.
  struct CostLine {
    std::array<double, kMaxLength + 1> count{}, ms{};
    void add(int x, double t, double decay);
    bool fit(double slope_share, double* a, double* b) const;
  };

  int max_;
  int k_;
  bool costed_ = false;  // record_costs() was called: choose by cost
  bool explore_ = false;  // the next draft is one token longer than the best
  bool paused_ = false;   // no length beats the model alone: probe one step in kProbeEvery
  int skipped_ = 0;       // steps without a draft since the last one, while paused
  int rejected_ = 0;      // drafts in a row rejected from their first token
  double step_count_ = 0, step_ms_ = 0;  // decayed: the model's plain one-token passes
  long rounds_ = 0;      // costed rounds
  double looked_ = 0;    // decayed: drafted tokens the model looked at (up to the first rejected)
  double accepted_ = 0;  // decayed: of those, accepted
  double saving_ms_ = -1;  // saving_per_token_ms()
  CostLine draft_;       // a draft of k tokens: x = k - 1
  CostLine verify_;      // a pass of n tokens: x = n - 1
};

}  // namespace wafer
