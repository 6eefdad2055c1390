#include "engine/compute/forward.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "engine/quant/float16.h"
#include "engine/compute/forward_ops.h"
#include "engine/quant/quant.h"

namespace wafer {

namespace {

template <class V>
void grow(V& v, size_t n) {
  if (v.size() < n) v.resize(n);
}

void add_bias(float* y, const std::vector<float>& bias, int n, size_t width) {
  if (bias.empty()) return;
  for (int t = 0; t < n; ++t)
    for (size_t i = 0; i < width; ++i) y[t * width + i] += bias[i];
}

}  // namespace

template <class F>
void Forward::each_token(int n, F&& fn) {
  if (n < kSplitTokens || pool_.size() == 1) return fn(0, n);
  pool_.run([&](int thread) {
    const Slice s = thread_slice(n, thread, pool_.size());
    if (s.begin < s.end) fn(static_cast<int>(s.begin), static_cast<int>(s.end));
  });
}

Forward::Forward(const Model& model, ThreadPool& pool, int max_batch)
    : model_(model), pool_(pool), max_batch_(std::max(1, max_batch)), simd_(model.backend().simd()) {}

void Forward::matmul(const kernels::PackedMatrix& w, kernels::ActivationSet& x, float* out, int64_t stride) {
  model_.backend().matmul(w, x, out, stride, pool_);
}

Status Forward::run(std::span<const int32_t> tokens, KvCache& kv, LogitsFor which, std::vector<float>& logits,
                    const std::atomic<bool>* interrupt) {
  const ModelConfig& c = model_.config();
  if (tokens.empty()) return make_error("forward: empty batch");
  for (int32_t t : tokens)
    if (t < 0 || static_cast<uint32_t>(t) >= c.n_vocab)
      return make_error("forward: token id " + std::to_string(t) + " is outside the vocabulary of " +
                        std::to_string(c.n_vocab));
  if (Status s = kv.check_room(static_cast<int64_t>(tokens.size())); !s) return s;

  const size_t rows = which == LogitsFor::kAll ? tokens.size() : (which == LogitsFor::kLast ? 1 : 0);
  logits.resize(rows * c.n_vocab);
  for (size_t start = 0; start < tokens.size(); start += static_cast<size_t>(max_batch_)) {
    const size_t n = std::min(tokens.size() - start, static_cast<size_t>(max_batch_));
    const bool last = start + n == tokens.size();
    if (!run_chunk(tokens.subspan(start, n), kv, which == LogitsFor::kAll, last && which == LogitsFor::kLast, logits,
                   which == LogitsFor::kAll ? start * c.n_vocab : 0, interrupt))
      return make_error(kInterrupted);
  }
  return {};
}

bool Forward::run_chunk(std::span<const int32_t> tokens, KvCache& kv, bool logits_all, bool logits_last,
                        std::vector<float>& logits, size_t logits_offset, const std::atomic<bool>* interrupt) {
  const ModelConfig& c = model_.config();
  const int n = static_cast<int>(tokens.size());
  const int pos0 = kv.size();
  const size_t embd = c.n_embd, q_dim = size_t{c.n_head} * c.head_dim_k;
  const size_t k_dim = size_t{c.n_head_kv} * c.head_dim_k, v_dim = size_t{c.n_head_kv} * c.head_dim_v;
  const size_t att_dim = size_t{c.n_head} * c.head_dim_v, ff = c.n_ff;
  grow(x_, n * embd);
  grow(xn_, n * embd);
  grow(q_, n * q_dim);
  grow(k_, n * k_dim);
  grow(v_, n * v_dim);
  grow(att_, n * att_dim);
  grow(gate_, n * ff);
  grow(up_, n * ff);
  grow(proj_, n * embd);
  grow(rope_, static_cast<size_t>(n) * c.n_rot);

  StepClock clock(profile_);
  const float freq_scale = c.rope_scaling.type == "linear" ? 1.0f / c.rope_scaling.factor : 1.0f;
  const int half_rot = static_cast<int>(c.n_rot / 2);
  each_token(n, [&](int t0, int t1) {
    for (int t = t0; t < t1; ++t) {
      model_.embed(tokens[t], x_.data() + t * embd);
      ops::rope_angles(pos0 + t, static_cast<int>(c.n_rot), c.rope_freq_base, freq_scale,
                       rope_.data() + t * c.n_rot, rope_.data() + t * c.n_rot + half_rot);
    }
  });
  const bool neox = c.arch->rope == RopeLayout::NeoX;
  // x += proj, then xn = rms_norm(x) with `norm` (nullptr: the add only), token by token.
  const auto add_and_norm = [&](bool add, const std::vector<float>* norm) {
    each_token(n, [&](int t0, int t1) {
      for (int t = t0; t < t1; ++t) {
        float* x = x_.data() + t * embd;
        if (simd_) {
          simd_->add_rms_norm(x, add ? proj_.data() + t * embd : nullptr, norm ? norm->data() : nullptr,
                              norm ? xn_.data() + t * embd : nullptr, static_cast<int64_t>(embd), c.norm_eps);
          continue;
        }
        if (add)
          for (size_t i = 0; i < embd; ++i) x[i] += proj_[t * embd + i];
        if (norm) ops::rms_norm(x, norm->data(), xn_.data() + t * embd, embd, c.norm_eps);
      }
    });
  };

  for (size_t l = 0; l < model_.layers().size(); ++l) {
    const LayerWeights& L = model_.layers()[l];
    // Attention block (the first layer's norm; the others' come with the previous residual add).
    if (l == 0) add_and_norm(false, &L.attn_norm);
    in_xn_.reset(xn_.data(), n, embd);
    const kernels::MatmulJob qkv[] = {{&L.wq, q_.data(), static_cast<int64_t>(q_dim)},
                                      {&L.wk, k_.data(), static_cast<int64_t>(k_dim)},
                                      {&L.wv, v_.data(), static_cast<int64_t>(v_dim)}};
    clock.lap(StepProfile::kOther);
    model_.backend().matmul_many(qkv, in_xn_, pool_);
    clock.lap(StepProfile::kQkv);
    // Each token's biases, RoPE and cache entries (threads write different positions).
    each_token(n, [&](int t0, int t1) {
      add_bias(q_.data() + t0 * q_dim, L.bq, t1 - t0, q_dim);
      add_bias(k_.data() + t0 * k_dim, L.bk, t1 - t0, k_dim);
      add_bias(v_.data() + t0 * v_dim, L.bv, t1 - t0, v_dim);
      for (int t = t0; t < t1; ++t) {
        const float* cs = rope_.data() + t * c.n_rot;
        if (simd_ && neox) {
          simd_->rope_neox(q_.data() + t * q_dim, static_cast<int>(c.n_head), c.head_dim_k, static_cast<int>(c.n_rot),
                           cs, cs + half_rot);
          simd_->rope_neox(k_.data() + t * k_dim, static_cast<int>(c.n_head_kv), c.head_dim_k,
                           static_cast<int>(c.n_rot), cs, cs + half_rot);
        } else {
          for (uint32_t h = 0; h < c.n_head; ++h)
            ops::rope_rotate(q_.data() + t * q_dim + h * c.head_dim_k, static_cast<int>(c.n_rot), neox, cs,
                             cs + half_rot);
          for (uint32_t h = 0; h < c.n_head_kv; ++h)
            ops::rope_rotate(k_.data() + t * k_dim + h * c.head_dim_k, static_cast<int>(c.n_rot), neox, cs,
                             cs + half_rot);
        }
        for (uint32_t h = 0; h < c.n_head_kv; ++h) {
          float* kh = k_.data() + t * k_dim + h * c.head_dim_k;
          kv.set_key(static_cast<int>(l), static_cast<int>(h), pos0 + t, kh);
          kv.set_value(static_cast<int>(l), static_cast<int>(h), pos0 + t, v_.data() + t * v_dim + h * c.head_dim_v);
        }
      }
    });
    clock.lap(StepProfile::kRopeKv);
    attention(static_cast<int>(l), n, pos0, kv, !logits_all);
    clock.lap(StepProfile::kAttention);
    in_att_.reset(att_.data(), n, att_dim);
    matmul(L.wo, in_att_, proj_.data(), embd);
    clock.lap(StepProfile::kWo);
    add_and_norm(true, &L.ffn_norm);

    // Feed-forward block.
    in_xn_.reset(xn_.data(), n, embd);
    const kernels::MatmulJob gate_up[] = {{&L.w_gate, gate_.data(), static_cast<int64_t>(ff)},
                                          {&L.w_up, up_.data(), static_cast<int64_t>(ff)}};
    clock.lap(StepProfile::kOther);
    model_.backend().matmul_many(gate_up, in_xn_, pool_);
    clock.lap(StepProfile::kGateUp);
    swiglu(n * ff);
    clock.lap(StepProfile::kSwiglu);
    in_ff_.reset(gate_.data(), n, ff);
    matmul(L.w_down, in_ff_, proj_.data(), embd);
    clock.lap(StepProfile::kDown);
    const bool more = l + 1 < model_.layers().size();
    add_and_norm(true, more ? &model_.layers()[l + 1].attn_norm : nullptr);
    if (interrupt && interrupt->load(std::memory_order_relaxed)) return false;
  }
  kv.append(n);
  clock.lap(StepProfile::kOther);

  if (!logits_all && !logits_last) return true;
  const int first = logits_all ? 0 : n - 1;
  const int rows = n - first;
  for (int t = first; t < n; ++t) {
    float* x = x_.data() + t * embd;
    float* y = xn_.data() + (t - first) * embd;
    if (simd_)
      simd_->add_rms_norm(x, nullptr, model_.output_norm().data(), y, static_cast<int64_t>(embd), c.norm_eps);
    else
      ops::rms_norm(x, model_.output_norm().data(), y, embd, c.norm_eps);
  }
  in_out_.reset(xn_.data(), rows, embd);
  clock.lap(StepProfile::kOther);
  if (subset_ && subset_->head < static_cast<int64_t>(c.n_vocab))
    output_subset(rows, logits.data() + logits_offset);
  else
    matmul(model_.output(), in_out_, logits.data() + logits_offset, c.n_vocab);
  clock.lap(StepProfile::kOutput);
  return true;
}

void Forward::output_subset(int rows, float* out) {
  const ModelConfig& c = model_.config();
  const auto vocab = static_cast<int64_t>(c.n_vocab);
  const auto embd = static_cast<int64_t>(c.n_embd);
  // A prefix of whole panels is itself a packed matrix of those rows (quant_repack.h).
  const int64_t head = std::min(vocab, (std::max<int64_t>(subset_->head, 0) + 15) / 16 * 16);
  kernels::PackedMatrix first = model_.output();
  first.view.rows = head;
  if (head > 0) matmul(first, in_out_, out, vocab);
  for (int t = 0; t < rows; ++t)
    std::fill(out + t * vocab + head, out + (t + 1) * vocab, -std::numeric_limits<float>::infinity());
  grow(output_row_, static_cast<size_t>(embd));
  for (int32_t id : subset_->extra) {
    if (id < head || id >= vocab) continue;
    model_.output_row(id, output_row_.data());
    for (int t = 0; t < rows; ++t)
      out[t * vocab + id] = ops::lane_dot(xn_.data() + t * embd, output_row_.data(), embd, 1);
  }
}

void Forward::swiglu(size_t count) {
  auto run = [&](size_t begin, size_t end) {
    const auto len = static_cast<int64_t>(end - begin);
    if (simd_)
      simd_->swiglu(gate_.data() + begin, up_.data() + begin, len);
    else
      ops::swiglu(gate_.data() + begin, up_.data() + begin, len);
  };
  // Thousands of exponentials per token: worth splitting across the pool when prefilling
  // (one token's worth is not: a barrier costs more than it saves).
  if (count < 16384 || pool_.size() == 1) return run(0, count);
  pool_.run([&](int thread) {
    const Slice s = thread_slice(static_cast<int64_t>(count), thread, pool_.size(), 16);
    if (s.begin < s.end) run(static_cast<size_t>(s.begin), static_cast<size_t>(s.end));
  });
}

void Forward::shift_keys(KvCache& kv, int pos, int n, int delta) {
  const ModelConfig& c = model_.config();
  if (delta == 0 || n <= 0 || c.n_rot == 0) return;
  const float freq_scale = c.rope_scaling.type == "linear" ? 1.0f / c.rope_scaling.factor : 1.0f;
  const int n_rot = static_cast<int>(c.n_rot), half = n_rot / 2;
  std::vector<float> cs(static_cast<size_t>(n_rot));
  ops::rope_angles(delta, n_rot, c.rope_freq_base, freq_scale, cs.data(), cs.data() + half);
  const bool neox = c.arch->rope == RopeLayout::NeoX;
  std::vector<float> key(c.head_dim_k);
  for (uint32_t l = 0; l < c.n_layer; ++l)
    for (uint32_t h = 0; h < c.n_head_kv; ++h)
      for (int p = pos; p < pos + n; ++p) {
        kv.get_key(static_cast<int>(l), static_cast<int>(h), p, key.data());
        ops::rope_rotate(key.data(), n_rot, neox, cs.data(), cs.data() + half);
        kv.set_key(static_cast<int>(l), static_cast<int>(h), p, key.data());
      }
}

namespace {

// The scalar reference of one (token, KV head, heads [h0, h1)) attention item, over keys in
// KvCache's transposed blocks and value rows of float or half (T).
template <class T>
void attend_scalar(const float* q, int h0, int h1, const T* keys, const T* values, int n_pos, int dk, int dv,
                   float scale, float* scratch, float* out) {
  for (int h = h0; h < h1; ++h) {
    for (int p = 0; p < n_pos; ++p)
      scratch[p] = ops::lane_dot(q + h * dk, keys + (static_cast<size_t>(p / 16) * dk * 16 + p % 16), dk, 16);
    ops::softmax_scaled(scratch, n_pos, scale);
    for (int i = 0; i < dv; ++i) out[h * dv + i] = ops::lane_dot(scratch, values + i, n_pos, dv);
  }
}

// The scalar reference over Q8_0 keys (KvCache::keys_q8 blocks) and F16 values: the
// queries of heads [h0, h1) arrive as Q8_0 blocks (qb, dk / 32 per head), each score is
// the sum over 32-dimension blocks of float(integer dot) * (key scale * query scale),
// fused, blocks ascending - the SIMD kernel's arithmetic (attend_q8_kernels.h).
void attend_scalar_q8(const quant::BlockQ8_0* qb, int h0, int h1, const uint8_t* keys, const uint16_t* values,
                      int n_pos, int dk, int dv, float scale, float* scratch, float* out) {
  const int nb = dk / 32;
  const size_t block_bytes = static_cast<size_t>(18) * dk;
  for (int h = h0; h < h1; ++h) {
    const quant::BlockQ8_0* qh = qb + static_cast<size_t>(h - h0) * nb;
    for (int p = 0; p < n_pos; ++p) {
      const uint8_t* kb = keys + static_cast<size_t>(p / 16) * block_bytes;
      float dot = 0.0f;
      for (int b = 0; b < nb; ++b) {
        int32_t isum = 0;
        for (int j = 0; j < 32; ++j) {
          const int i = b * 32 + j;
          isum += int32_t{qh[b].qs[j]} * (static_cast<int32_t>(kb[KvCache::q8_quant_at(i, p % 16)]) - 128);
        }
        float dkey;
        std::memcpy(&dkey, kb + KvCache::q8_scale_at(dk, b, p % 16), 4);
        dot = std::fma(static_cast<float>(isum), dkey * f16_to_f32(qh[b].d), dot);
      }
      scratch[p] = dot;
    }
    ops::softmax_scaled(scratch, n_pos, scale);
    for (int i = 0; i < dv; ++i) out[h * dv + i] = ops::lane_dot(scratch, values + i, n_pos, dv);
  }
}

}  // namespace

namespace {

// Tokens of a prefill whose attention is computed together (per KV head, all its query
// heads): the keys and value rows are then read once for the block. The block's scores
// (tokens x group x positions floats per thread) stay within ~256 KB, so they are still in
// L2 when the softmax and the weighted sum read them back; and the blocks are many enough
// for every thread to have one.
int attention_token_block(int n, int n_kv, int group, int n_pos_max, int threads) {
  constexpr int64_t kScoreFloats = 64 * 1024;
  int block = static_cast<int>(std::clamp<int64_t>(kScoreFloats / (int64_t{group} * n_pos_max), 1, 16));
  const int per_thread = n * n_kv / std::max(1, threads);  // tokens x KV heads per thread
  return std::max(1, std::min({block, per_thread, n}));
}

// Prefills of at least this many tokens attend on the tiles where the kernels have them
// (SimdKernels::attend_f16_tiles). Each call converts its keys and values for the tiles
// first; with 4 tokens (28 query rows of a 7-head group) the tiles already cost less than
// the vector kernel, with 2 they break even (docs/performance.md, "Prefill attention on
// the tiles").
constexpr int kTileMinTokens = 4;

// Tokens per tile attention call: as many as give every thread a call (a KV head's calls
// go to one thread when there are at least as many heads as threads), at most 64 (448
// query rows for a 7-head group), so the keys and values are converted few times.
int tile_token_block(int n, int n_kv, int threads) {
  const int calls_per_head = std::max(1, (threads + n_kv - 1) / n_kv);
  return std::clamp((n + calls_per_head - 1) / calls_per_head, 1, 64);
}

}  // namespace

void Forward::attention(int layer, int n, int pos0, KvCache& kv, bool tiles_allowed) {
  const ModelConfig& c = model_.config();
  if (n > 1 && simd_ && kv.type() != KvType::Q8_0 && c.head_dim_k % 16 == 0 && c.head_dim_v % 16 == 0) {
    if (tiles_allowed && n >= kTileMinTokens && kv.type() == KvType::F16 && simd_->attend_f16_tiles &&
        tiles_attend_shape(static_cast<int>(c.head_dim_k), static_cast<int>(c.head_dim_v)))
      return attention_blocks(layer, n, pos0, kv, tile_token_block(n, static_cast<int>(c.n_head_kv), pool_.size()),
                              true);
    const int group = static_cast<int>(c.n_head / c.n_head_kv);
    const int block = attention_token_block(n, static_cast<int>(c.n_head_kv), group, pos0 + n, pool_.size());
    if (block > 1) return attention_blocks(layer, n, pos0, kv, block, false);
  }
  const int n_kv = static_cast<int>(c.n_head_kv), group = static_cast<int>(c.n_head / c.n_head_kv);
  const int dk = static_cast<int>(c.head_dim_k), dv = static_cast<int>(c.head_dim_v);
  const size_t q_dim = size_t{c.n_head} * c.head_dim_k, att_dim = size_t{c.n_head} * c.head_dim_v;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
  const int threads = pool_.size();
  // Work items: (token, KV head, part of its query group). The query heads of a group are
  // done together so the group's keys and values are read once; the group is split only
  // when there are fewer (token, KV head) pairs than threads (decode with many threads).
  const int pairs = n * n_kv;
  const int parts = pairs >= threads ? 1 : std::min(group, (threads + pairs - 1) / pairs);
  const int heads_per_part = (group + parts - 1) / parts;
  const bool simd_attend = simd_ && dk % 16 == 0 && dv % 16 == 0;
  const size_t per_thread = simd_attend ? attend_scratch_floats(heads_per_part, kv.capacity(), dv) : kv.capacity();
  grow(scores_, static_cast<size_t>(threads) * per_thread);
  const KvCache& cache = kv;
  const bool f16 = kv.type() == KvType::F16;
  const bool q8 = kv.type() == KvType::Q8_0;
  const int q8_blocks = dk / 32 * heads_per_part;  // a worker's query blocks (Q8_0 keys)
  if (q8) grow(q8_, static_cast<size_t>(threads) * q8_blocks * sizeof(quant::BlockQ8_0));
  // Items go round-robin to the threads, not in contiguous slices: under the causal mask
  // a token's work grows with its position, and with contiguous slices the thread holding
  // the last tokens of a prefill did ~3/4 of the work (2 threads, 512 tokens from position
  // 0). Round-robin also gives each of 2 threads one KV head of a 2-head model, so each
  // reads only its own head's keys and values.
  const int64_t items = int64_t{pairs} * parts;
  pool_.run([&](int thread) {
    float* scratch = scores_.data() + static_cast<size_t>(thread) * per_thread;
    for (int64_t item = thread; item < items; item += threads) {
      const int t = static_cast<int>(item / (n_kv * parts)), kvh = static_cast<int>(item / parts % n_kv);
      const int h0 = kvh * group + static_cast<int>(item % parts) * heads_per_part;
      const int h1 = std::min(h0 + heads_per_part, (kvh + 1) * group);
      const int n_pos = pos0 + t + 1;  // causal: positions 0..pos0+t
      const float* q = q_.data() + t * q_dim;
      float* out = att_.data() + t * att_dim;
      if (q8) {
        auto* qb = reinterpret_cast<quant::BlockQ8_0*>(q8_.data()) + static_cast<size_t>(thread) * q8_blocks;
        quant::quantize_row_q8_0(q + h0 * dk, qb, int64_t{h1 - h0} * dk);
        const uint8_t* keys = cache.keys_q8(layer, kvh);
        const uint16_t* values = cache.values_f16(layer, kvh);
        if (simd_attend && dk <= 512)
          simd_->attend_q8(reinterpret_cast<const uint8_t*>(qb), h1 - h0, keys, values, n_pos, dk, dv, scale, scratch,
                           out + h0 * dv, dv);
        else
          attend_scalar_q8(qb, h0, h1, keys, values, n_pos, dk, dv, scale, scratch, out);
      } else if (f16) {
        const uint16_t* keys = cache.keys_f16(layer, kvh);  // blocks of 16 positions, transposed
        const uint16_t* values = cache.values_f16(layer, kvh);
        if (simd_attend)
          simd_->attend_f16(q + h0 * dk, dk, h1 - h0, keys, values, n_pos, dk, dv, scale, scratch, out + h0 * dv, dv,
                            nullptr);
        else
          attend_scalar(q, h0, h1, keys, values, n_pos, dk, dv, scale, scratch, out);
      } else {
        const float* keys = cache.keys(layer, kvh);
        const float* values = cache.values(layer, kvh);
        if (simd_attend)
          simd_->attend(q + h0 * dk, dk, h1 - h0, keys, values, n_pos, dk, dv, scale, scratch, out + h0 * dv, dv,
                        nullptr);
        else
          attend_scalar(q, h0, h1, keys, values, n_pos, dk, dv, scale, scratch, out);
      }
    }
  });
}

// attention() for token blocks of a prefill: work items (KV head, block of `block`
// tokens) round-robin over the threads; each item copies its tokens' query heads of that
// KV head into one contiguous batch (token-major), attends them together with each query's
// own causal limit (n_pos_each), and copies the results back. Bit for bit the per-token
// items' results (dispatch.h).
void Forward::attention_blocks(int layer, int n, int pos0, KvCache& kv, int block, bool tiles) {
  const ModelConfig& c = model_.config();
  const int n_kv = static_cast<int>(c.n_head_kv), group = static_cast<int>(c.n_head / c.n_head_kv);
  const int dk = static_cast<int>(c.head_dim_k), dv = static_cast<int>(c.head_dim_v);
  const size_t q_dim = size_t{c.n_head} * c.head_dim_k, att_dim = size_t{c.n_head} * c.head_dim_v;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
  const int threads = pool_.size();
  const int n_q = block * group, n_pos_max = pos0 + n;
  // Per thread: the scores, then the batch's queries and outputs; and its queries' limits.
  const size_t scores_floats = tiles ? 0 : attend_scratch_floats(n_q, n_pos_max, dv);  // the tiles keep their own
  const size_t per_thread = scores_floats + static_cast<size_t>(n_q) * (dk + dv);
  grow(scores_, static_cast<size_t>(threads) * per_thread);
  if (limits_.size() < static_cast<size_t>(threads) * n_q) limits_.resize(static_cast<size_t>(threads) * n_q);
  const int blocks = (n + block - 1) / block;
  const int64_t items = int64_t{blocks} * n_kv;
  const bool f16 = kv.type() == KvType::F16;
  const AttendF16Fn attend_f16 = tiles ? simd_->attend_f16_tiles : simd_->attend_f16;
  const KvCache& cache = kv;
  pool_.run([&](int thread) {
    float* scratch = scores_.data() + static_cast<size_t>(thread) * per_thread;
    float* qs = scratch + scores_floats;
    float* outs = qs + static_cast<size_t>(n_q) * dk;
    int* limits = limits_.data() + static_cast<size_t>(thread) * n_q;
    for (int64_t item = thread; item < items; item += threads) {
      const int b = static_cast<int>(item / n_kv), kvh = static_cast<int>(item % n_kv);
      const int t0 = b * block, t1 = std::min(n, t0 + block), count = (t1 - t0) * group;
      for (int t = t0; t < t1; ++t)
        for (int g = 0; g < group; ++g) {
          const int j = (t - t0) * group + g;
          std::memcpy(qs + static_cast<size_t>(j) * dk, q_.data() + t * q_dim + (kvh * group + g) * dk,
                      sizeof(float) * dk);
          limits[j] = pos0 + t + 1;  // causal: positions 0..pos0+t
        }
      const int n_pos = pos0 + t1;
      if (f16)
        attend_f16(qs, dk, count, cache.keys_f16(layer, kvh), cache.values_f16(layer, kvh), n_pos, dk, dv, scale,
                   scratch, outs, dv, limits);
      else
        simd_->attend(qs, dk, count, cache.keys(layer, kvh), cache.values(layer, kvh), n_pos, dk, dv, scale, scratch,
                      outs, dv, limits);
      for (int t = t0; t < t1; ++t)
        std::memcpy(att_.data() + t * att_dim + static_cast<size_t>(kvh) * group * dv,
                    outs + static_cast<size_t>(t - t0) * group * dv, sizeof(float) * group * dv);
    }
  });
}

}  // namespace wafer
