// bench_draft's set acceptance rate (header-only, so tests can drive it with tiny models).
//
// Random-weight models agree on nothing, so a draft model's proposal is rewritten token by
// token (DraftFilter) to the model's own next greedy token with probability p, known from a
// reference run of the model, and to a wrong token otherwise.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "engine/engine_local.h"

namespace wafer::bench {

// Drafts tokens of `reference` (the model's own greedy output) with probability p each, a
// wrong token otherwise. p < 0 records the output instead and drafts nothing, so that run
// decodes one token at a time as the model alone does. `off_reference` is set when a run's
// output leaves the reference: its drafts past that point are not right with probability p.
struct SyntheticDraft {
  std::vector<int32_t> reference;
  double p = -1;
  std::mt19937 rng{1};
  int32_t n_vocab = 1;
  bool off_reference = false;
  void operator()(std::span<const int32_t> output, std::vector<int32_t>& draft) {
    if (p < 0) {
      if (output.size() > reference.size()) reference.assign(output.begin(), output.end());
      draft.clear();
      return;
    }
    if (output.size() > reference.size() ||
        !std::equal(output.begin(), output.end(), reference.begin()))
      off_reference = true;
    std::uniform_real_distribution<double> coin(0, 1);
    for (size_t i = 0; i < draft.size(); ++i) {
      const size_t at = output.size() + i;
      const int32_t right = at < reference.size() ? reference[at] : 0;
      draft[i] = coin(rng) < p ? right : (right + 1) % n_vocab;
    }
  }
};

// Records in `draft` (the engine's draft filter) the model's own tokens for `request`, one
// more than it asks for, so that every token of a run of `request` has its right draft.
// The recorded run follows a warm-up on the same prompt, as every measured run does: a cold
// run is no reference, since its prefill computes the prompt's last token in a batch and a
// warm run recomputes it alone, and that small difference can change a later greedy token
// of a random-weight model, whose logits are nearly flat. Leaves the engine drafting up to
// max_draft tokens; false when a run fails.
inline bool record_reference(LocalEngine& e, SyntheticDraft& draft,
                             const CompletionRequest& request, int max_draft) {
  CompletionRequest longer = request;
  longer.max_tokens = request.max_tokens + 1;
  draft.p = -1;
  e.set_max_draft(max_draft);  // the draft model runs, so its cache is warm too
  for (int i = 0; i < 2; ++i) {
    draft.reference.clear();
    bool done = false;
    e.complete(longer, [&](const CompletionEvent& ev) {
      done = done || ev.kind == CompletionEvent::Kind::kDone;
    });
    if (!done) return false;
  }
  return true;
}

}  // namespace wafer::bench
