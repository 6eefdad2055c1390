// The float parts of the forward pass that cost real time once the matmuls are fast,
// written once over the same vector traits as packed_kernels.h: attention of one query
// head over the cached keys/values (dot products, softmax, weighted sum of values),
// SwiGLU, the residual add with RMS norm, and NeoX RoPE. Attention and SwiGLU need exp()
// for thousands of values per token, so V::exp is a vectorized exponential (range
// reduction to 2^n * e^r, |r| <= ln2/2, a degree-6 polynomial; relative error ~2e-7, like
// ggml's own SIMD expf).
//
// V additionally provides: loadf(p), half_to_float(p) (L halves), storef(p, v), maxf, minf,
// subf, divf, reduce_add(v), reduce_max(v), round_nearest(v) and scale_pow2(p, n) (p * 2^n
// for integral n in [-126, 128]).
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>

#include "engine/kernels/softmax_floor.h"

namespace wafer::simd {

template <class V>
struct FloatImpl {
  using F = typename V::F;
  static constexpr int L = V::kLanes;

  // L cached keys or values as floats: float as is, F16 (an F16 KV cache) widened exactly.
  static F load(const float* p) { return V::loadf(p); }
  static F load(const uint16_t* p) { return V::half_to_float(p); }

  // e^x for every lane: x clamped to the float range of e^x, then e^x = 2^n * e^r with
  // n = round(x / ln2), r = x - n ln2 (ln2 in two parts for precision), e^r by Taylor
  // polynomial of degree 6 (|r| <= ln2 / 2: relative error ~2e-7).
  static F exp(F x) {
    x = V::maxf(V::minf(x, V::set1f(88.7f)), V::set1f(-87.3f));
    const F n = V::round_nearest(V::mul(x, V::set1f(1.44269504f)));
    F r = V::fnmadd(n, V::set1f(0.693359375f), x);
    r = V::fnmadd(n, V::set1f(-2.12194440e-4f), r);
    F p = V::set1f(1.0f / 720);
    _Pragma("GCC unroll 8")
    for (float c : {1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f}) p = V::fmadd(p, r, V::set1f(c));
    return V::scale_pow2(p, n);
  }

  // Attention of n_q query heads that share one key/value head (grouped-query attention;
  // n_q = 1 for plain multi-head): out_h[0..dv) = softmax over p < n_pos of
  // (scale * q_h . k_p), weighted sum of v_p, for q_h = q + h * q_stride and
  // out_h = out + h * out_stride. T: float, or uint16_t for an F16 cache (IEEE halves). keys
  // are in KvCache's transposed blocks of 16 positions
  // (dimension i of key p at keys[(p / 16 * dk + i) * 16 + p % 16], ceil(n_pos / 16)
  // whole blocks: the padding lanes are read, their scores dropped); values are n_pos rows
  // of dv elements; dk and dv multiples of 16 (the caller checks); scratch holds
  // attend_scratch_floats(n_q, n_pos, dv).
  //
  // The keys and values are streamed from memory once for the whole group, each in
  // address order: every block of 16 keys and every value row is used by all n_q heads
  // while it sits in L1 (one head at a time re-read them n_q times, from L2 or L3 once the
  // context is long). Two sequential streams are what the hardware prefetcher follows
  // best: a weighted sum that reads the value rows 16 apart (one pass per lane) needs a
  // software prefetch of the values during the scores, and is still slower from memory.
  // A head's result is bit for bit the same for any n_q: the sums of each head are formed
  // in one fixed order whatever the heads computed alongside it.
  //
  // n_pos_each (or nullptr: n_pos for every query): query h attends to positions
  // [0, n_pos_each[h]) only, n_pos_each[h] <= n_pos - the queries of several tokens of one
  // prefill under the causal mask, scored together so each block of keys and each value row
  // is read once for all of them. Its scores beyond its own limit are computed and dropped,
  // its weights there are exactly 0, and 0 x v added to a sum changes no bit of it (a sum
  // that starts at +0 is never -0), so each query's result is bit for bit the one it gets
  // alone with n_pos = n_pos_each[h].
  template <class T>
  static void attend(const float* q, int64_t q_stride, int n_q, const T* keys, const T* values, int n_pos, int dk,
                     int dv, float scale, float* scratch, float* out, int64_t out_stride,
                     const int* n_pos_each = nullptr) {
    float* scores = scratch;  // n_q x n_pos
    if (dk == 64)
      score_keys<64>(q, q_stride, n_q, keys, n_pos, 64, scale, scores);
    else if (dk == 128)
      score_keys<128>(q, q_stride, n_q, keys, n_pos, 128, scale, scores);
    else
      score_keys<0>(q, q_stride, n_q, keys, n_pos, dk, scale, scores);
    weigh_values(scores, n_q, n_pos, values, dv, out, out_stride, n_pos_each);
  }

  // Softmax of each head's n_pos scores (scores + h * n_pos), then
  // out_h[i] = sum_p scores_h[p] v_p[i], the value rows read in order, p ascending: a
  // slice of kSliceVecs vectors of each row is loaded once and used by a block of heads
  // whose sums stay in registers (one FMA chain per head and vector).
  template <class T>
  static void weigh_values(float* scores, int n_q, int n_pos, const T* values, int dv, float* out,
                           int64_t out_stride, const int* n_pos_each = nullptr) {
    for (int h = 0; h < n_q; ++h) {
      float* row = scores + static_cast<int64_t>(h) * n_pos;
      const int own = n_pos_each ? n_pos_each[h] : n_pos;
      softmax_row(row, own);
      for (int p = own; p < n_pos; ++p) row[p] = 0.0f;
    }
    for (int i = 0; i < dv; i += kSliceVecs * L) {
      const int nv = (dv - i) / L < kSliceVecs ? (dv - i) / L : kSliceVecs;
      for (int h0 = 0; h0 < n_q;) {
        const int hb = balanced_block(n_q - h0, kHeadBlock[nv]);
        value_sums(nv, hb, scores + static_cast<int64_t>(h0) * n_pos, n_pos, values + i, dv,
                   out + h0 * out_stride + i, out_stride);
        h0 += hb;
      }
    }
  }

  // Vectors of a value row summed per pass. 8 lanes: 2, so a pass holds 6 heads' sums
  // (12 registers) and each widened row slice feeds 6 heads, not 3 (the F16 widening, not
  // the FMAs, bounded 4-vector passes). 16 lanes: 4. Each output's sum is the same chain
  // over the positions either way.
  static constexpr int kSliceVecs = L == 8 ? 2 : 4;

  // The next block of at most `most` when `left` remain, the blocks as even as possible
  // (7 heads at most 6 -> 4 + 3, not 6 + 1: one head alone has too few FMA chains).
  static constexpr int balanced_block(int left, int most) {
    const int blocks = (left + most - 1) / most;
    return (left + blocks - 1) / blocks;
  }

  // scores[h * n_pos + p] = scale * (q_h . k_p) for every head and position. A block of 16
  // keys (dk x 16 values, a few KB) is read while kScoreHeads heads of the group use it:
  // in the transposed block one dimension of the 16 keys is one row of vectors, loaded (and
  // widened, for F16) once and multiplied into the sums of every head in turn, the query
  // element broadcast from memory. Each head keeps 4 FMA chains per vector of keys
  // (dimensions i = j mod 4), added as (c0 + c1) + (c2 + c3) (16 lanes; 8 lanes: 2 chains
  // per vector, score_heads_8): the same arithmetic whatever
  // the number of heads scored together, so a head's scores are bit for bit the same for
  // any n_q (and thread split). Loading each key row once per head instead (the earlier
  // form, with 16 chains per head) spent most of the time on loads and conversions.
  // DK: dk if known (64, 128: the key offsets become constants), else 0.
  // Heads scored together: 16 lanes, 4 accumulators each in registers (7 x 4); 8 lanes,
  // 4 (score_heads_8: 3 x 4 plus the two key vectors).
  static constexpr int kScoreHeads = L == 16 ? 7 : 3;
  // Software prefetch (into L1) of the keys 32 positions ahead of the block being scored
  // and of the value rows 16 ahead of the one being summed: deep in a context a decoded
  // token's keys and values come from memory (384 KB a layer and thread at 1,500 positions
  // of the 0.5B shape), where the hardware prefetcher alone does not keep up; nearer
  // distances hide less of the latency, farther ones evict what is still to be used. The
  // results do not change.
  static constexpr int kPrefetchKeys = 32;
  static constexpr int kPrefetchRows = 16;
  template <int DK, class T>
  static void score_keys(const float* q, int64_t q_stride, int n_q, const T* keys, int n_pos, int dk_runtime,
                         float scale, float* scores) {
    const int dk = DK ? DK : dk_runtime;
    const F vscale = V::set1f(scale);
    const int64_t block_bytes = static_cast<int64_t>(sizeof(T)) * 16 * dk;
    for (int p0 = 0; p0 < n_pos; p0 += 16) {
      const T* kb = keys + static_cast<int64_t>(p0) * dk;
      const int n_keys = n_pos - p0 < 16 ? n_pos - p0 : 16;
      if (p0 + 16 + kPrefetchKeys <= n_pos) {
        const char* ahead = reinterpret_cast<const char*>(kb) + block_bytes * (kPrefetchKeys / 16);
        for (int64_t off = 0; off < block_bytes; off += 64) __builtin_prefetch(ahead + off, 0, 3);
      }
      for (int h0 = 0, hb = 0; h0 < n_q; h0 += hb) {
        hb = balanced_block(n_q - h0, kScoreHeads);
        float* sh = scores + static_cast<int64_t>(h0) * n_pos + p0;
        switch (hb) {
#define WAFER_SCORE_HEADS(HB)                                                                     \
  case HB:                                                                                        \
    if constexpr (HB <= kScoreHeads) {                                                            \
      if constexpr (L == 8)                                                                       \
        score_heads_8<DK, HB>(q + h0 * q_stride, q_stride, kb, dk, vscale, sh, n_pos, n_keys);    \
      else                                                                                        \
        score_heads<DK, HB>(q + h0 * q_stride, q_stride, kb, dk, vscale, sh, n_pos, n_keys);      \
    }                                                                                             \
    break;
          WAFER_SCORE_HEADS(1) WAFER_SCORE_HEADS(2) WAFER_SCORE_HEADS(3) WAFER_SCORE_HEADS(4)
          WAFER_SCORE_HEADS(5) WAFER_SCORE_HEADS(6) WAFER_SCORE_HEADS(7)
#undef WAFER_SCORE_HEADS
          default: break;
        }
      }
    }
  }

  // score_keys for 8 lanes (AVX2, NEON as pairs of 128-bit registers): HB <= 3 heads x the
  // block's 16 keys as two vectors, two FMA chains per head and vector (even and odd
  // dimensions, added at the end). Both key vectors are widened once per dimension and each
  // query element is broadcast once for both: 2 loads + HB broadcasts per 2 x HB FMAs,
  // where one vector at a time loads every query element twice and is bound by loads. The
  // same arithmetic for any number of heads alongside, as in score_heads.
  template <int DK, int HB, class T>
  static void score_heads_8(const float* q, int64_t q_stride, const T* kb, int dk_runtime, F vscale, float* sh,
                            int n_pos, int n_keys) {
    const int dk = DK ? DK : dk_runtime;
    F acc[HB][2][2];
    _Pragma("GCC unroll 8")
    for (int h = 0; h < HB; ++h) acc[h][0][0] = acc[h][0][1] = acc[h][1][0] = acc[h][1][1] = V::zero_f();
    _Pragma("GCC unroll 2")
    for (int i = 0; i < dk; i += 2)
      _Pragma("GCC unroll 2")
      for (int j = 0; j < 2; ++j) {
        const F k0 = load(kb + (i + j) * 16), k1 = load(kb + (i + j) * 16 + L);
        _Pragma("GCC unroll 8")
        for (int h = 0; h < HB; ++h) {
          const F qi = V::set1f(q[h * q_stride + i + j]);
          acc[h][0][j] = V::fmadd(k0, qi, acc[h][0][j]);
          acc[h][1][j] = V::fmadd(k1, qi, acc[h][1][j]);
        }
      }
    alignas(64) float part[16];
    _Pragma("GCC unroll 8")
    for (int h = 0; h < HB; ++h) {
      float* dst = n_keys == 16 ? sh + static_cast<int64_t>(h) * n_pos : part;
      V::storef(dst, V::mul(V::add_f(acc[h][0][0], acc[h][0][1]), vscale));
      V::storef(dst + L, V::mul(V::add_f(acc[h][1][0], acc[h][1][1]), vscale));
      if (n_keys < 16)
        for (int k = 0; k < n_keys; ++k) sh[static_cast<int64_t>(h) * n_pos + k] = part[k];
    }
  }

  // score_keys for HB heads (q + h * q_stride) over one block of 16 keys (kb): scores of
  // head h at sh + h * n_pos, n_keys of them.
  template <int DK, int HB, class T>
  static void score_heads(const float* q, int64_t q_stride, const T* kb, int dk_runtime, F vscale, float* sh,
                          int n_pos, int n_keys) {
    const int dk = DK ? DK : dk_runtime;
    constexpr int kVecs = 16 / L;  // vectors per 16 keys
    alignas(64) float part[HB][16];  // a partial block's scores before they are copied out
    for (int kv = 0; kv < kVecs; ++kv) {
      F acc[HB][4];
      _Pragma("GCC unroll 8")
      for (int h = 0; h < HB; ++h)
        _Pragma("GCC unroll 4")
        for (int j = 0; j < 4; ++j) acc[h][j] = V::zero_f();
      for (int i = 0; i < dk; i += 4)
        _Pragma("GCC unroll 4")
        for (int j = 0; j < 4; ++j) {
          const F key = load(kb + (i + j) * 16 + kv * L);
          _Pragma("GCC unroll 8")
          for (int h = 0; h < HB; ++h) acc[h][j] = V::fmadd(key, V::set1f(q[h * q_stride + i + j]), acc[h][j]);
        }
      _Pragma("GCC unroll 8")
      for (int h = 0; h < HB; ++h) {
        const F sums = V::mul(V::add_f(V::add_f(acc[h][0], acc[h][1]), V::add_f(acc[h][2], acc[h][3])), vscale);
        V::storef(n_keys == 16 ? sh + static_cast<int64_t>(h) * n_pos + kv * L : part[h] + kv * L, sums);
      }
    }
    if (n_keys < 16)
      for (int h = 0; h < HB; ++h)
        for (int k = 0; k < n_keys; ++k) sh[static_cast<int64_t>(h) * n_pos + k] = part[h][k];
  }

  // Heads whose value sums fit the registers at once, by vectors per slice (index 1..4).
  static constexpr int kAccRegs = L == 16 ? 28 : 12;
  static constexpr int kHeadBlock[5] = {0, kAccRegs < 7 ? kAccRegs : 7, kAccRegs / 2 < 7 ? kAccRegs / 2 : 7,
                                        kAccRegs / 3 < 7 ? kAccRegs / 3 : 7, kAccRegs / 4 < 7 ? kAccRegs / 4 : 7};

  template <class T>
  static void value_sums(int nv, int hb, const float* w, int n_pos, const T* v, int stride, float* out,
                         int64_t out_head_stride) {
    switch (nv * 8 + hb) {
#define WAFER_VALUE_SUMS(NV, HB) \
  case NV * 8 + HB:              \
    if constexpr (HB <= kHeadBlock[NV]) value_sums_t<NV, HB, T>(w, n_pos, v, stride, out, out_head_stride); \
    return;
#define WAFER_VALUE_SUMS_NV(NV) \
  WAFER_VALUE_SUMS(NV, 1) WAFER_VALUE_SUMS(NV, 2) WAFER_VALUE_SUMS(NV, 3) WAFER_VALUE_SUMS(NV, 4) \
  WAFER_VALUE_SUMS(NV, 5) WAFER_VALUE_SUMS(NV, 6) WAFER_VALUE_SUMS(NV, 7)
      WAFER_VALUE_SUMS_NV(1) WAFER_VALUE_SUMS_NV(2) WAFER_VALUE_SUMS_NV(3) WAFER_VALUE_SUMS_NV(4)
#undef WAFER_VALUE_SUMS_NV
#undef WAFER_VALUE_SUMS
      default: return;
    }
  }

  // For HB heads (weights w + h * n_pos): out[h * out_head_stride + 0..NV*L) = sum over
  // p < n_pos of w_h[p] * v[p * stride + 0..NV*L), p ascending, the HB * NV sums in
  // registers: each value row slice is loaded once, rows in memory order.
  template <int NV, int HB, class T>
  static void value_sums_t(const float* w, int n_pos, const T* v, int stride, float* out, int64_t out_head_stride) {
    F acc[HB][NV];
    _Pragma("GCC unroll 8")
    for (int h = 0; h < HB; ++h)
      _Pragma("GCC unroll 4")
      for (int j = 0; j < NV; ++j) acc[h][j] = V::zero_f();
    for (int p = 0; p < n_pos; ++p) {
      const T* row = v + static_cast<int64_t>(p) * stride;
      if (p + kPrefetchRows < n_pos) {
        const char* ahead = reinterpret_cast<const char*>(row + static_cast<int64_t>(kPrefetchRows) * stride);
        _Pragma("GCC unroll 4")
        for (int off = 0; off < static_cast<int>(sizeof(T)) * NV * L; off += 64) __builtin_prefetch(ahead + off, 0, 3);
      }
      F vr[NV];
      _Pragma("GCC unroll 4")
      for (int j = 0; j < NV; ++j) vr[j] = load(row + j * L);
      _Pragma("GCC unroll 8")
      for (int h = 0; h < HB; ++h) {
        const F wp = V::set1f(w[static_cast<int64_t>(h) * n_pos + p]);
        _Pragma("GCC unroll 4")
        for (int j = 0; j < NV; ++j) acc[h][j] = V::fmadd(wp, vr[j], acc[h][j]);
      }
    }
    _Pragma("GCC unroll 8")
    for (int h = 0; h < HB; ++h)
      _Pragma("GCC unroll 4")
      for (int j = 0; j < NV; ++j) V::storef(out + h * out_head_stride + j * L, acc[h][j]);
  }

  // e^d for d > kSoftmaxFloor, else exactly 0 (softmax_floor.h: no denormal weights). The
  // step (d - floor) * 2^100 clamped to [0, 1] is exactly 1 for any d above the floor (the
  // difference is at least one ulp of 40, 2^-18) and 0 at or below it, with no compare or
  // blend operation in the traits.
  static F weight(F d) {
    const F step = V::minf(V::maxf(V::mul(V::subf(d, V::set1f(kSoftmaxFloor)), V::set1f(0x1p100f)), V::zero_f()),
                           V::set1f(1.0f));
    return V::mul(exp(d), step);
  }

  // scores[0..n) = exp(scores - max) / their sum (the sum in float, applied as one
  // multiplication by its inverse).
  static void softmax_row(float* scores, int n) {
    F vm = V::set1f(-INFINITY);
    int p = 0;
    for (; p + L <= n; p += L) vm = V::maxf(vm, V::loadf(scores + p));
    float mx = V::reduce_max(vm);
    for (; p < n; ++p) mx = scores[p] > mx ? scores[p] : mx;
    const F vmax = V::set1f(mx);
    F vsum = V::zero_f();
    for (p = 0; p + L <= n; p += L) {
      F e = weight(V::subf(V::loadf(scores + p), vmax));
      V::storef(scores + p, e);
      vsum = V::add_f(vsum, e);
    }
    float sum = V::reduce_add(vsum);
    for (; p < n; ++p) {
      const float d = scores[p] - mx;
      scores[p] = d > kSoftmaxFloor ? std::exp(d) : 0.0f;
      sum += scores[p];
    }
    const F inv = V::set1f(1.0f / sum);
    for (p = 0; p + L <= n; p += L) V::storef(scores + p, V::mul(V::loadf(scores + p), inv));
    for (; p < n; ++p) scores[p] *= 1.0f / sum;
  }

  // x += add (unless add is nullptr), then, unless y is nullptr, y = x * s * w with
  // s = 1 / sqrt(mean of x^2 + eps): ops::rms_norm's twin with the residual add folded in
  // (one pass over x for both). The sum of squares is formed in float in 2L lanes, where
  // ops::rms_norm sums in double: the scale differs by float rounding (~1e-7 relative).
  static void add_rms_norm(float* x, const float* add, const float* w, float* y, int64_t n, float eps) {
    F s0 = V::zero_f(), s1 = V::zero_f();
    int64_t i = 0;
    for (; i + 2 * L <= n; i += 2 * L) {
      F a = V::loadf(x + i), b = V::loadf(x + i + L);
      if (add) {
        a = V::add_f(a, V::loadf(add + i));
        b = V::add_f(b, V::loadf(add + i + L));
        V::storef(x + i, a);
        V::storef(x + i + L, b);
      }
      s0 = V::fmadd(a, a, s0);
      s1 = V::fmadd(b, b, s1);
    }
    for (; i + L <= n; i += L) {
      F a = V::loadf(x + i);
      if (add) {
        a = V::add_f(a, V::loadf(add + i));
        V::storef(x + i, a);
      }
      s0 = V::fmadd(a, a, s0);
    }
    float sum = V::reduce_add(V::add_f(s0, s1));
    for (; i < n; ++i) {
      if (add) x[i] += add[i];
      sum += x[i] * x[i];
    }
    if (!y) return;
    const float scale = 1.0f / std::sqrt(sum / static_cast<float>(n) + eps);
    const F vs = V::set1f(scale);
    for (i = 0; i + L <= n; i += L) V::storef(y + i, V::mul(V::mul(V::loadf(x + i), vs), V::loadf(w + i)));
    for (; i < n; ++i) y[i] = x[i] * scale * w[i];
  }

  // RoPE of n_heads heads of n_rot dimensions (head h at x + h * stride), NeoX layout: the
  // pairs are dimensions i and i + n_rot / 2, rotated by the angle whose cosine and sine
  // are cos_t[i] and sin_t[i]. ops::rope_rotate's twin (the same products, no fused
  // multiply-add, so the same bits wherever the scalar code is not contracted either).
  static void rope_neox(float* x, int n_heads, int64_t stride, int n_rot, const float* cos_t, const float* sin_t) {
    const int half = n_rot / 2;
    for (int h = 0; h < n_heads; ++h) {
      float* a = x + h * stride;
      float* b = a + half;
      int i = 0;
      for (; i + L <= half; i += L) {
        const F x0 = V::loadf(a + i), x1 = V::loadf(b + i), c = V::loadf(cos_t + i), s = V::loadf(sin_t + i);
        V::storef(a + i, V::subf(V::mul(x0, c), V::mul(x1, s)));
        V::storef(b + i, V::add_f(V::mul(x0, s), V::mul(x1, c)));
      }
      for (; i < half; ++i) {
        const float x0 = a[i], x1 = b[i];
        a[i] = x0 * cos_t[i] - x1 * sin_t[i];
        b[i] = x0 * sin_t[i] + x1 * cos_t[i];
      }
    }
  }

  // g[i] = silu(g[i]) * u[i] = g / (1 + e^-g) * u.
  static void swiglu(float* g, const float* u, int64_t n) {
    const F one = V::set1f(1.0f);
    int64_t i = 0;
    for (; i + L <= n; i += L) {
      const F x = V::loadf(g + i);
      const F silu = V::divf(x, V::add_f(one, exp(V::subf(V::zero_f(), x))));
      V::storef(g + i, V::mul(silu, V::loadf(u + i)));
    }
    for (; i < n; ++i) g[i] = g[i] / (1.0f + std::exp(-g[i])) * u[i];
  }
};

}  // namespace wafer::simd
