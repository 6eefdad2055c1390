// Prompt-lookup drafting for speculative decoding. Code repeats itself (identifiers, calls,
// whole lines), so the tokens that followed the last occurrence of the current n-gram in
// the prompt or in the output so far are a cheap guess at what comes next. The engine
// verifies a draft with one batched forward pass and keeps the longest prefix the model
// agrees with; with greedy sampling the output is exactly that of plain decoding.
//
// The draft length adapts to how well drafts have been doing (draft_length.h).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/decode/speculation/draft_length.h"

namespace wafer {

struct DraftParams {
  int max_draft = 8;  // longest draft; 0 turns speculation off
  int max_ngram = 3;  // tried first: the longest match is the most reliable
  int min_ngram = 2;  // shorter matches are too often coincidences
};

class PromptLookup {
 public:
  explicit PromptLookup(const DraftParams& params = {});

  // Up to min(current draft length, limit) tokens that followed the most recent earlier
  // occurrence of the last n tokens of `history` (n from max_ngram down to min_ngram);
  // empty when nothing matches.
  std::vector<int32_t> propose(std::span<const int32_t> history, int limit) const;
  // Feeds back how a draft fared, to adapt the draft length.
  void record(int proposed, int accepted) { length_.record(proposed, accepted); }

  int draft_length() const { return length_.get(); }

 private:
  DraftParams params_;
  DraftLength length_;
};

}  // namespace wafer
