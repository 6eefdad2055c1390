// A Session is one sequence being generated: a KV cache and the tokens it holds, plus the
// forward pass that fills it. generate() reuses the longest common prefix of the tokens
// already in the cache and the new prompt (only the rest is prefilled), then samples
// tokens one at a time, streaming each to a callback that can stop generation.
// Generation ends on an end-of-generation token (EOS/EOT/FIM end: the caller passes the
// model's list), at max_tokens, at a stop string, when the callback says so, or when the
// context is full.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/decode/chunk_reuse.h"
#include "engine/types.h"
#include "engine/compute/forward.h"
#include "engine/compute/kv_cache.h"
#include "engine/model/model.h"
#include "engine/base/result.h"
#include "engine/decode/sampler.h"
#include "engine/runtime/threadpool.h"

namespace wafer {

struct GenerateParams {
  int max_tokens = 64;
  SamplerParams sampling;                 // greedy by default
  std::vector<int32_t> stop_tokens;       // end-of-generation ids; not part of the output
  std::vector<std::string> stop_strings;  // output ends before the first occurrence
  // The bytes of a token, for stop strings and GenerateResult::text (optional without them).
  std::function<std::string_view(int32_t)> token_text;
};

struct GenerateResult {
  std::vector<int32_t> tokens;  // generated (an end-of-generation token is not included)
  std::string text;             // their bytes (needs token_text), cut before a stop string
  StopReason stop = StopReason::kMaxTokens;
  int prompt_tokens = 0;        // length of the prompt
  int reused_tokens = 0;        // of which already in the cache
  double prompt_ms = 0;         // prefill of the rest
  double decode_ms = 0;         // everything after the prefill
};

// Called with each generated token as soon as it is sampled; return false to stop.
using TokenCallback = std::function<bool(int32_t token)>;

class Session {
 public:
  // A session whose cache holds n_ctx tokens (errors when that cannot be allocated).
  static Result<Session> create(const Model& model, ThreadPool& pool, int n_ctx, KvType kv_type = KvType::F32);

  Result<GenerateResult> generate(std::span<const int32_t> prompt, const GenerateParams& params,
                                  const TokenCallback& on_token = {});

  // Lower level, for tests and tools: appends tokens to the cache and computes logits
  // (logits() afterwards: one row for kLast, one per token for kAll). With an `interrupt`
  // flag that gets set, it fails with Forward::kInterrupted within one layer's work; the
  // tokens that got into the cache before that are in tokens().
  Status eval(std::span<const int32_t> tokens, LogitsFor which = LogitsFor::kLast,
              const std::atomic<bool>* interrupt = nullptr);
  const std::vector<float>& logits() const { return logits_; }
  // Every following eval() computes the logits of *subset only (Forward::set_output_subset;
  // nullptr: of every id). The subset must outlive those calls.
  void set_output_subset(const OutputSubset* subset) { forward_.set_output_subset(subset); }
  // Whether logits() is still the single row that predicts the token after everything in
  // the cache: the last eval() was a kLast one and nothing changed the cache since. A
  // prompt the cache holds whole then needs no forward pass at all before sampling.
  bool logits_follow_cache() const { return logits_at_ >= 0 && static_cast<size_t>(logits_at_) == tokens_.size(); }

  // Chunk reuse (engine/decode/chunk_reuse.h): stash() copies the cache entries of the chunks
  // aside (call it before anything overwrites their positions); place_stashed(i) then
  // appends chunk i's entries at the end of the cache, which must be at the chunk's
  // prompt position, with keys re-rotated to their new positions.
  void stash(std::span<const ReusedChunk> chunks);
  Status place_stashed(size_t i);

  // The first step of bringing the cache to `prompt` (not empty): keeps the longest common
  // prefix (all but the last prompt token, which is run again for fresh logits), plans the
  // chunks found further on (chunk_reuse_min as EngineOptions::chunk_reuse_min, 0: none)
  // and stashes them, and truncates the cache to the prefix. The caller then runs
  // prompt[common, chunks[0].prompt_pos), place_stashed(0), and so on to the prompt's end.
  // `up_to_date`: the cache holds exactly the prompt and the logits after it, and nothing
  // was changed.
  struct Reuse {
    bool up_to_date = false;
    size_t common = 0;
    std::vector<ReusedChunk> chunks;
  };
  Reuse begin_reuse(std::span<const int32_t> prompt, int chunk_reuse_min);
  // The plan begin_reuse() carries out, without stashing or truncating anything.
  Reuse plan_reuse(std::span<const int32_t> prompt, int chunk_reuse_min) const;

  const std::vector<int32_t>& tokens() const { return tokens_; }
  int context_size() const { return kv_.capacity(); }
  void truncate(int n);  // keeps the first n tokens

 private:
  Session(const Model& model, ThreadPool& pool, KvCache kv);

  const Model* model_;
  KvCache kv_;
  std::vector<int32_t> tokens_;  // exactly the tokens whose K/V are in kv_
  Forward forward_;
  std::vector<float> logits_;
  int64_t logits_at_ = -1;  // cache length the kLast row of logits_ follows (-1: none)
  std::vector<ReusedChunk> stashed_;          // chunks whose entries stash_ holds
  std::vector<std::vector<int32_t>> stashed_tokens_;
  std::vector<size_t> stash_offset_;          // where each chunk starts in stash_
  std::vector<float> stash_;                  // grows to the largest stash, then reused
};

}  // namespace wafer
