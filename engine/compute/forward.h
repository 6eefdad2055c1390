// The transformer forward pass of a llama/qwen2-family model over a batch of tokens.
// Prefill (many tokens) and decode (one token) are the same call: the tokens take the
// positions after those already in the KV cache, their keys/values are appended to it, and
// logits come back for the last position or for every position.
//
// Per layer, reading top to bottom like the paper:
//   xn = rms_norm(x) * attn_norm
//   q, k, v = xn Wq^T (+bq), xn Wk^T (+bk), xn Wv^T (+bv); RoPE on q and k; k, v -> cache
//   a = softmax(q k^T / sqrt(head_dim) over positions <= own) v     (per head; GQA shares kv)
//   x += a Wo^T
//   xn = rms_norm(x) * ffn_norm
//   x += (silu(xn Wg^T) * (xn Wu^T)) Wd^T
// then logits = (rms_norm(x) * output_norm) Wout^T.
//
// A Forward holds the scratch buffers for one model (grown to the largest batch seen, then
// reused); it is not thread-safe, use one per engine thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/runtime/huge_pages.h"
#include "engine/kernels/kernels.h"
#include "engine/compute/kv_cache.h"
#include "engine/model/model.h"
#include "engine/base/result.h"
#include "engine/compute/step_profile.h"
#include "engine/runtime/threadpool.h"

namespace wafer {

enum class LogitsFor { kLast, kAll, kNone };

// Logits over part of the vocabulary, for a draft model, which needs only its greedy token:
// the ids [0, head) through the packed output matrix (the first rows: with a vocabulary in
// merge order, its most frequent tokens), the ids in `extra` (each >= head) from the rows
// the file stores (Model::output_row), every other logit -infinity. head is rounded up to
// whole panels of 16 rows; head >= n_vocab: the whole vocabulary.
struct OutputSubset {
  int64_t head = 0;
  std::vector<int32_t> extra;
};

class Forward {
 public:
  // Prompts longer than max_batch are processed in chunks of max_batch tokens.
  Forward(const Model& model, ThreadPool& pool, int max_batch = 256);

  // Runs `tokens`, appending them to `kv`. On success `logits` holds n_vocab floats per
  // requested position (kLast: 1, kAll: tokens.size()), row-major. Fails without touching
  // the cache for an empty batch, a token id outside the vocabulary, or a batch that does
  // not fit in the cache.
  //
  // With an `interrupt` flag, the flag is read after every layer; once it is set, run()
  // stops within one layer's work and fails with kInterrupted. Chunks finished before that
  // stay appended to the cache (kv.size() says how many tokens got in); the interrupted
  // chunk is not appended and leaves the cache as it was (entries past kv.size() may have
  // been written: they are free space).
  static constexpr const char* kInterrupted = "forward: interrupted";
  Status run(std::span<const int32_t> tokens, KvCache& kv, LogitsFor which, std::vector<float>& logits,
             const std::atomic<bool>* interrupt = nullptr);

  // Re-rotates the cached keys at positions [pos, pos + n) as if their tokens sat `delta`
  // positions further on (RoPE composes: rotating by delta more is the rotation of pos +
  // delta, up to float rounding). For moving cache entries (engine/decode/chunk_reuse.h).
  void shift_keys(KvCache& kv, int pos, int n, int delta);

  // Adds each step's wall time of every following run to *profile (nullptr: stop).
  void set_profile(StepProfile* profile) { profile_ = profile; }
  // Every following run computes the logits of *subset only (nullptr: of every id). The
  // subset must outlive those runs.
  void set_output_subset(const OutputSubset* subset) { subset_ = subset; }

 private:
  // false: interrupted (nothing appended).
  bool run_chunk(std::span<const int32_t> tokens, KvCache& kv, bool want_logits_all, bool last_chunk,
                 std::vector<float>& logits, size_t logits_offset, const std::atomic<bool>* interrupt);
  // tiles_allowed: a batch may attend on the BF16 tiles. Not for kAll runs, the verification
  // of speculative drafts: the tiles round the scores to BF16, and a verified choice must be
  // the one-token decode's, or drafting would change the greedy output at near-ties.
  void attention(int layer, int n, int pos0, KvCache& kv, bool tiles_allowed);
  // tiles: the F16 cache's batches go to SimdKernels::attend_f16_tiles (the AMX BF16 tiles).
  void attention_blocks(int layer, int n, int pos0, KvCache& kv, int block, bool tiles);
  void swiglu(size_t count);  // gate_[0..count) = silu(gate_) * up_, split across the pool when large
  // fn(t0, t1) over tokens [0, n): in slices across the pool for a batch of kSplitTokens or
  // more, else on the calling thread. For the per-token steps between the matmuls (norms,
  // residual adds, RoPE and cache writes): single-threaded they are a visible share of a
  // long prefill once the matmuls are split.
  static constexpr int kSplitTokens = 8;
  template <class F>
  void each_token(int n, F&& fn);
  void matmul(const kernels::PackedMatrix& w, kernels::ActivationSet& x, float* out, int64_t stride);
  // The logits of `rows` normed rows (xn_, in_out_) over subset_ into out (n_vocab apart).
  void output_subset(int rows, float* out);

  const Model& model_;
  ThreadPool& pool_;
  int max_batch_;
  const SimdKernels* simd_;  // the backend's attention/SwiGLU kernels, or nullptr: scalar ops
  // Scratch, row-major per token (sizes for the current batch n); big ones (a prefill's
  // FFN rows: 10 MiB each for 512 tokens of the 0.5B shape) on huge pages.
  using Scratch = std::vector<float, HugePageAllocator<float>>;
  Scratch x_;       // (n, n_embd) residual stream
  Scratch xn_;      // (n, n_embd) normed input of a block
  Scratch q_;       // (n, n_head * head_dim_k)
  Scratch k_;       // (n, n_head_kv * head_dim_k)
  Scratch v_;       // (n, n_head_kv * head_dim_v)
  Scratch att_;     // (n, n_head * head_dim_v) attention output before Wo
  Scratch gate_;    // (n, n_ff)
  Scratch up_;      // (n, n_ff)
  Scratch proj_;    // (n, n_embd) output of Wo / Wd before the residual add
  Scratch scores_;  // attention scratch per worker (scores, partial sums)
  Scratch rope_;    // (n, n_rot) cos then sin per position
  std::vector<uint8_t> q8_;  // Q8_0 keys: each worker's query heads as Q8_0 blocks
  std::vector<int> limits_;  // attention_blocks: each worker's queries' causal limits
  kernels::ActivationSet in_xn_, in_att_, in_ff_, in_out_;
  StepProfile* profile_ = nullptr;
  const OutputSubset* subset_ = nullptr;
  std::vector<float> output_row_;  // output_subset: one extra id's weights
};

}  // namespace wafer
