// How many tokens a speculative draft should be. Every drafted token costs a row of the
// verification batch (and, for a draft model, a forward pass of its own), so the length
// follows how drafts have been faring: it grows while drafts are accepted whole and halves
// when most of a draft is rejected. Shared by prompt lookup and the draft model, each
// keeping its own.
#pragma once

namespace wafer {

class DraftLength {
 public:
  // Starts at min(4, max); max 0 keeps the length at 0 (no drafts).
  explicit DraftLength(int max);

  int get() const { return k_; }
  // Feeds back how a draft of `proposed` tokens fared.
  void record(int proposed, int accepted);

 private:
  int max_;
  int k_;
};

}  // namespace wafer
