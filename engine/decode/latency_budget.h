// The first-token latency budget: a request that cannot produce its first token within its
// budget is shrunk rather than answered late. The cost of a prefill is what the cache does
// not already hold (the prompt after the longest common prefix), and while the user types
// that is the end of the prefix plus everything after it: the suffix. So the suffix is cut,
// whole lines from its end (its first line, the rest of the cursor's line, always stays),
// until what is left to prefill fits. Costs come from this engine's own recent runs.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "engine/tokenizer/tokenizer.h"
#include "engine/types.h"

namespace wafer {

// Milliseconds per prefilled token and per decoded token, as moving averages of the runs
// observed so far (prefills of 16+ tokens, decodes of 2+ tokens, not cancelled).
class ForwardCosts {
 public:
  void observe(const Timings& t);
  bool known() const { return prefill_ms_per_token_ > 0; }
  // Tokens that can be prefilled so that the first token comes within budget_ms (one
  // decode step included); -1 while no prefill was measured.
  long prefill_within(double budget_ms) const;

 private:
  double prefill_ms_per_token_ = 0, decode_ms_per_token_ = 0;
};

// Bytes of `suffix` to keep when only `keep_tokens` of its tokens (`tokens`, its encoding)
// may stay: whole lines, never less than its first line. suffix.size() when all fit.
size_t suffix_bytes_within(std::string_view suffix, const std::vector<TokenId>& tokens, size_t keep_tokens,
                           const Tokenizer& tokenizer);

}  // namespace wafer
