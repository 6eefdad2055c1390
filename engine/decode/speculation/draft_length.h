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
// counting most), yields 1 + p + ... + p^k tokens for k draft tokens' time plus one pass
// of the model over k + 1 tokens (a line fitted to the passes seen, ms = a + b (n - 1)).
// A draft that costs a good part of the model's step is then kept short unless nearly all
// of it is accepted, and a cheap one grows.
#pragma once

#include <array>

namespace wafer {

class DraftLength {
 public:
  static constexpr int kMaxLength = 16;  // longest draft the cost model considers

  // Starts at min(4, max); max 0 keeps the length at 0 (no drafts).
  explicit DraftLength(int max);

  int get() const { return k_; }
  // Feeds back how a draft of `proposed` tokens fared.
  void record(int proposed, int accepted);
  // Feeds back what a draft of `proposed` tokens cost to make (draft_ms) and to verify
  // (verify_ms: the model's pass over the proposed tokens and the one before them). Call
  // after record() of the same draft.
  void record_costs(int proposed, double draft_ms, double verify_ms);

  // The acceptance the cost model uses (a prior of 0.5 until drafts are seen).
  double acceptance() const;

 private:
  void choose();  // k_: the most tokens per millisecond

  int max_;
  int k_;
  bool costed_ = false;      // record_costs() was called: choose by cost
  double looked_ = 0;        // decayed: drafted tokens the model looked at (up to the first rejected)
  double accepted_ = 0;      // decayed: of those, accepted
  double draft_ms_ = 0;      // decayed: draft time
  double draft_tokens_ = 0;  // decayed: tokens that time made
  // Decayed sums per pass size n = 1..kMaxLength + 1 (index n - 1): passes and their ms.
  std::array<double, kMaxLength + 1> passes_{}, pass_ms_{};
};

}  // namespace wafer
