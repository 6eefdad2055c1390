// A small model of the same vocabulary that drafts for speculative decoding: it decodes
// greedily on its own for a few tokens, and the target verifies them all in one batched
// forward pass (completion_run.h). A draft costs k forward passes of the small model; when
// the target agrees with most of it, the target runs once for several tokens instead of
// once per token, which is the expensive part.
//
// The draft keeps its own KV cache (one, whichever document is being completed) and its
// own weights. Before drafting it is brought to the target's history by the same longest
// common prefix rule as a session: the tokens the target rejected roll back, the accepted
// ones stay, and the token the target chose instead (and a new prompt's tail) is run. With
// chunk reuse (chunk_reuse.h), spans of a new prompt that the draft's cache holds further on
// (the suffix after a keystroke) are moved, as the target's session moves them. The draft
// length adapts to acceptance (draft_length.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "engine/base/result.h"
#include "engine/compute/kv_cache.h"
#include "engine/decode/speculation/draft_length.h"
#include "engine/decode/session.h"
#include "engine/model/model.h"
#include "engine/runtime/threadpool.h"

namespace wafer {

// For benchmarks: called with the output so far (the history after the prompt) and the
// draft model's proposal, after the model ran; may rewrite the proposal, to set the
// acceptance rate that random-weight models cannot have (they agree on nothing).
using DraftFilter = std::function<void(std::span<const int32_t> output, std::vector<int32_t>& draft)>;

// For benchmarks: one forward pass of the model while decoding, with the draft it verified.
struct DecodePass {
  int rows = 1;            // tokens of the pass: the last chosen one and the draft after it
  double ms = 0;           // the model's pass
  bool by_model = false;   // the draft was the draft model's (else prompt lookup's, or none)
  double draft_ms = 0;     // the draft model's passes that made the draft (by_model)
  // by_model, and the draft's cache first ran only a few tokens (one batched pass) to reach
  // the history: draft_ms is what a draft costs, and the draft length learns from it.
  bool typical = false;
};
using PassObserver = std::function<void(const DecodePass&)>;

class DraftModel {
 public:
  // A drafter over `model` with a cache of n_ctx tokens; max_draft bounds the draft length;
  // chunk_reuse_min as EngineOptions::chunk_reuse_min (0: off).
  // vocab_head > 0: the draft scores only the token ids below it and the ids its history
  // holds (OutputSubset; EngineOptions::draft_vocab), 0: every id.
  static Result<DraftModel> create(const Model& model, ThreadPool& pool, int n_ctx, KvType kv_type, int max_draft,
                                   int chunk_reuse_min = 0, int64_t vocab_head = 0);

  // Up to min(draft length, limit) greedy tokens of the draft model after `history` (the
  // target's prompt and output so far), ending early with a token `ends` says ends the
  // generation (nothing after it could be used; null: none does). Fails when the draft's
  // forward pass does (an interrupt through `interrupt`, or a history the draft's cache
  // cannot hold).
  using EndsGeneration = std::function<bool(int32_t)>;
  Result<std::vector<int32_t>> propose(std::span<const int32_t> history, int limit,
                                       const std::atomic<bool>* interrupt = nullptr,
                                       const EndsGeneration* ends = nullptr);
  // Brings the draft's cache to `history` and the logits after it without drafting: a
  // warm-up in idle time (a prefill-only request), so that the request that follows drafts
  // at once instead of first prefilling the draft's cache for the whole prompt. Fails as
  // propose() does (an interrupt, a history the cache cannot hold).
  Status prefill(std::span<const int32_t> history, const std::atomic<bool>* interrupt = nullptr);

  // Feeds back how a draft fared, to adapt the draft length.
  void record(int proposed, int accepted) { length_.record(proposed, accepted); }
  // Feeds back what the draft cost to make and to verify, to choose the length by cost.
  void record_costs(int proposed, double draft_ms, double verify_ms) {
    length_.record_costs(proposed, draft_ms, verify_ms);
  }

  // Feeds back the time of a step the model decoded alone (a one-token pass).
  void record_step(double ms) { length_.record_step(ms); }
  // A step that went without this draft because drafting is paused (draft_length() was 0):
  // counts towards the next probe.
  void skipped() { length_.skipped(); }

  // The length of the next draft; 0 while drafting pauses (draft_length.h).
  int draft_length() const { return length_.get(); }
  // Tokens the draft's cache ran to catch up with the history in the last propose() or
  // prefill(): 1-2 in a draft after a verification, more after a keystroke, the whole
  // prompt in a new document (moved chunks not counted).
  int last_catch_up_tokens() const { return caught_up_; }

  // The tokens a draft after `history` would first run to catch the draft's cache up (the
  // moved chunks not counted); 0 when the cache is at the history already.
  int catch_up_size(std::span<const int32_t> history) const;
  // Whether catching the draft's cache up with `history` is expected to cost less than
  // drafting saves over the rest of a request that has generated `generated` of at most
  // `max_tokens` tokens: the catch-up's size times the time per token the draft's earlier
  // long catch-ups took, against the saving per token the draft length's cost lines expect
  // times the tokens left (those up to max_tokens, or fewer when recent requests ended
  // sooner: note_request_tokens). True for a catch-up as short as a keystroke's. While
  // either cost is unmeasured (a fresh engine: no long catch-up timed, no drafts yet), true
  // only below kUnmeasuredCatchUp tokens.
  bool catch_up_pays(std::span<const int32_t> history, int generated, int max_tokens) const;
  // A request that drafted with this model ended after `n` tokens (its stop rules, its
  // budget, a cancel): recent requests' lengths bound what drafting can save in the next.
  void note_request_tokens(int n);
  // The measured time per token of the draft's long catch-ups (decayed mean), -1 before one.
  double catch_up_ms_per_token() const { return catch_up_ms_per_token_; }
  // Catch-ups of at least this many tokens are timed; shorter ones always pay.
  static constexpr int kTimedCatchUp = 32;
  // Before both costs are measured, a catch-up of at least this many tokens does not pay:
  // the 0.5B draft prefills about a token a millisecond on 2 threads, while drafting saves
  // a few milliseconds a token of a suggestion (more with a 7B model, whose suggestions
  // this delays less in proportion). The caller that sat out catches the draft up in idle
  // time, which times the catch-up, and the next request drafts, which measures the saving.
  static constexpr int kUnmeasuredCatchUp = 128;
  const Session& session() const { return session_; }  // the draft's cache and its tokens

 private:
  DraftModel(Session session, int max_draft, int chunk_reuse_min, int64_t vocab_head)
      : session_(std::move(session)), length_(max_draft), chunk_reuse_min_(chunk_reuse_min) {
    subset_.head = vocab_head;
  }
  // Brings the cache to `history` and the logits after it (see the class comment).
  Status catch_up(std::span<const int32_t> history, const std::atomic<bool>* interrupt);
  // subset_.extra: the ids of `history` at or above the head, once each.
  void note_extra_ids(std::span<const int32_t> history);

  Session session_;
  DraftLength length_;
  int chunk_reuse_min_ = 0;
  OutputSubset subset_;  // head 0: every id
  int caught_up_ = 0;    // last_catch_up_tokens()
  double catch_up_ms_per_token_ = -1;  // catch_up_ms_per_token()
  double request_tokens_ = -1;         // decayed mean of note_request_tokens(), -1 before one
};

}  // namespace wafer
