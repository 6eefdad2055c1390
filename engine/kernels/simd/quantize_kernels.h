// Activation quantization (float rows -> Q8_0 or Q8_K blocks, plus the Q8_0 side values
// the packed kernels read), written once over a vector traits type V and compiled once per
// instruction set (kernels/avx512/quantize_avx512.cpp, kernels/avx2/quantize_avx2.cpp).
//
// Bit-exact with the scalar twins in engine/quant/quant_activations.cpp (quantize_row_q8_0,
// quantize_row_q8_K) for every input, NaN and infinity included: the same float
// operations in the same order, the same round-half-to-even bit trick, the same int8
// truncation. Only the maximum is found in a different order, and a maximum of non-NaN
// values does not depend on the order (max(a, m) keeps m when a is NaN, as the scalar
// `a > m ? a : m` does).
//
// V provides (F: vector of float lanes, I: vector of int32 lanes):
//   kLanes (8 or 16), loadf(p), storef(p, v) (aligned), absf(v), maxf(a, b) (b when a is
//   NaN), hmax(v) (largest lane; no NaN lanes), set1f(x), mul(a, b), divf(a, b),
//   zero_where_zero(v, a) (v, or 0 in the lanes where a == 0), round_bits(v) (the bits of
//   v + 1.5 * 2^23, the product v not fused into the add), round_even(v) (the scalar
//   round_even per lane), min127(q), eq_mask(a, b) (bit i: lane i equal), pack32(q) (the
//   low bytes of the 32 lanes of q[0 .. 32 / kLanes) as 32 bytes), store_halves(p, v) /
//   load_halves(p) (F16C, round to nearest even; aligned), lane_max(m) (lane k = largest
//   lane of m[k], for kLanes vectors) and block_sums(q, out) (out[k] = sum of the 32
//   signed bytes of q[k], for kLanes blocks).
// Both instruction sets have AVX2, so the Q8_K byte sums are written here once with its
// intrinsics (a template, so the two copies never merge).
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "engine/quant/quant.h"
#include "engine/kernels/dispatch.h"

namespace wafer::simd {

template <class V>
struct QuantizeImpl {
  using F = typename V::F;
  using I = typename V::I;
  static constexpr int L = V::kLanes;
  static constexpr int kPer32 = 32 / L;  // vectors per 32 elements

  // bsums of a Q8_K block: out[g] = sum of bytes 16g .. 16g+15, from its 8 x 32 bytes.
  static void group_sums(const __m256i* q, int16_t* out) {
    __m256i p[8];
    for (int k = 0; k < 8; ++k) {  // 128-bit lane h of p[k] = [a, 0, b, 0]: a + b = group 2k + h + 128 * 16
      const __m256i u = _mm256_xor_si256(q[k], _mm256_set1_epi8(static_cast<char>(0x80)));
      p[k] = _mm256_sad_epu8(u, _mm256_setzero_si256());
    }
    // Two rounds of pairwise adds: lane h of h2[i] holds groups 2k + h for k = 4i .. 4i + 3.
    __m256i h2[2];
    for (int i = 0; i < 2; ++i)
      h2[i] = _mm256_hadd_epi32(_mm256_hadd_epi32(p[4 * i], p[4 * i + 1]), _mm256_hadd_epi32(p[4 * i + 2], p[4 * i + 3]));
    // int16 [0 2 4 .. 14 | 1 3 5 .. 15] (|sum| <= 2048 + 2048: no saturation), interleaved.
    const __m256i w = _mm256_sub_epi16(_mm256_packs_epi32(h2[0], h2[1]), _mm256_set1_epi16(16 * 128));
    const __m128i even = _mm256_castsi256_si128(w), odd = _mm256_extracti128_si256(w, 1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi16(even, odd));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 8), _mm_unpackhi_epi16(even, odd));
  }

  // Largest |x[i]| over n elements (a multiple of 32), NaNs skipped.
  static float amax(const float* x, int n) {
    F m = V::set1f(0.f);
    for (int i = 0; i < n; i += L) m = V::maxf(V::absf(V::loadf(x + i)), m);
    return V::hmax(m);
  }

  // The 32 elements at x times `scale`, rounded, as bytes. Q8_0 takes the low bytes of
  // the rounding's bit pattern as they are (q = bits - 0x400000 has the same low byte);
  // Q8_K needs q itself to cap it at 127.
  template <bool kQ8K>
  static __m256i quantize32(const float* x, F scale) {
    I q[kPer32];
    for (int k = 0; k < kPer32; ++k) {
      const F v = V::mul(V::loadf(x + k * L), scale);
      q[k] = kQ8K ? V::min127(V::round_even(v)) : V::round_bits(v);
    }
    return V::pack32(q);
  }

  // Q8_0 for `count` (<= L) consecutive blocks at once, so that the per-block scalar steps
  // (largest magnitude, the two divisions, the half conversions, the quant sums) become one
  // vector operation per group: block j of the group is lane j.
  static void group_q8_0(const float* x, quant::BlockQ8_0* y, float* d_out, int32_t* sum_out, int count) {
    F m[L];
    for (int j = 0; j < L; ++j) {
      m[j] = V::set1f(0.f);
      if (j < count)
        for (int k = 0; k < kPer32; ++k) m[j] = V::maxf(V::absf(V::loadf(x + 32 * j + k * L)), m[j]);
    }
    const F am = V::lane_max(m);
    const F d = V::divf(am, V::set1f(127.f));
    const F id = V::zero_where_zero(V::divf(V::set1f(127.f), am), am);  // am != 0 ? 127 / am : 0
    alignas(64) float ids[L];
    alignas(64) uint16_t halves[L];
    alignas(64) float dq[L];
    alignas(64) int32_t sums[L];
    V::storef(ids, id);
    V::store_halves(halves, d);
    V::storef(dq, V::load_halves(halves));
    __m256i q[L];
    for (int j = 0; j < L; ++j) {
      if (j < count) {
        q[j] = quantize32<false>(x + 32 * j, V::set1f(ids[j]));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(y[j].qs), q[j]);
        std::memcpy(&y[j].d, &halves[j], sizeof halves[j]);
      } else {
        q[j] = _mm256_setzero_si256();
      }
    }
    V::block_sums(q, sums);
    std::memcpy(d_out, dq, sizeof(float) * static_cast<size_t>(count));
    std::memcpy(sum_out, sums, sizeof(int32_t) * static_cast<size_t>(count));
  }

  static void row_q8_0(const float* x, quant::BlockQ8_0* y, float* d_out, int32_t* sum_out, int64_t nb) {
    for (int64_t b = 0; b < nb; b += L) {
      const int count = nb - b < L ? static_cast<int>(nb - b) : L;
      group_q8_0(x + b * quant::kQK, y + b, d_out + b, sum_out + b, count);
    }
  }

  static void row_q8_K(const float* x, quant::BlockQ8_K* y, int64_t nb) {
    for (int64_t b = 0; b < nb; ++b, x += quant::kQK_K) {
      quant::BlockQ8_K& blk = y[b];
      const float am = amax(x, quant::kQK_K);
      if (am == 0.f) {
        std::memset(&blk, 0, sizeof blk);
        continue;
      }
      // The signed element of largest magnitude, the first one on ties (am is finite or
      // infinite, never NaN, and some |x[i]| equals it).
      float max = 0.f;
      const F target = V::set1f(am);
      for (int i = 0; i < quant::kQK_K; i += L) {
        const unsigned m = V::eq_mask(V::absf(V::loadf(x + i)), target);
        if (m) {
          max = x[i + __builtin_ctz(m)];
          break;
        }
      }
      const float iscale = -127.f / max;
      const F s = V::set1f(iscale);
      __m256i q[8];
      for (int k = 0; k < 8; ++k) {
        q[k] = quantize32<true>(x + 32 * k, s);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(blk.qs + 32 * k), q[k]);
      }
      group_sums(q, blk.bsums);
      blk.d = 1 / iscale;
    }
  }

  // quantize_act_rows (simd_kernels.h) for rows [t_begin, t_end) of the view.
  static void rows(const QuantizedActs& a, const float* x, int64_t x_stride, int t_begin, int t_end) {
    const int64_t nb = a.blocks();
    for (int t = t_begin; t < t_end; ++t) {
      const float* xt = x + t * x_stride;
      uint8_t* row = const_cast<uint8_t*>(a.rows) + static_cast<size_t>(t) * a.row_bytes;
      if (a.type == TensorType::Q8_0)
        row_q8_0(xt, reinterpret_cast<quant::BlockQ8_0*>(row), const_cast<float*>(a.d) + t * nb,
                 const_cast<int32_t*>(a.sums) + t * nb, nb);
      else
        row_q8_K(xt, reinterpret_cast<quant::BlockQ8_K*>(row), nb);
    }
  }
};

}  // namespace wafer::simd
