// AVX2 prefill for the 32-column formats (Q8_0, Q4_0, Q5_0): the shared kernel
// (simd/packed_kernels.h) walks a 16-row panel in two passes of 8 rows, so every
// activation broadcast feeds one vector, and its token tile of 4 keeps 8 weight vectors,
// their absolute values and 4 float accumulators live: more than the 16 ymm registers,
// so it spills in its inner loop. This micro-tile covers the whole panel (two vectors of
// 8 rows) x kTokens tokens:
//  - each broadcast of 4 activation quants feeds both row vectors;
//  - Q4_0 / Q5_0 add the int16 pair sums of vpmaddubsw over several 4-column groups
//    before the one vpmaddwd that widens them (u <= 15: 8 groups of 2 x 15 x 128 fit in
//    int16; u <= 31: 4 groups), instead of a vpmaddwd + vpaddd per group;
//  - only the int32 sums live in registers through a block; the float accumulators are
//    read and written once per block.
// The integer sums are exact either way, and each block's float step is the shared
// kernel's (and the scalar twin's): acc = fma(float(isum), dw * da, acc), block after
// block. So the results are bit for bit those of the shared kernel. The VNNI and
// AVX-512 builds keep the shared kernel (vpdpbusd has no such register pressure).
//
// Included only by kernels_avx2.cpp (AVX2 flags); an unnamed namespace, as traits_avx2.h.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <vector>

#include "engine/kernels/dispatch.h"
#include "engine/kernels/token_block.h"

namespace wafer::kernels_avx2 {
namespace {

struct LegacyPrefill {
  static constexpr int kTokens = 4;               // tokens per micro-tile
  static constexpr int kTokenBytes = 32 + 4 + 4;   // per token and block: as PackedImpl::tile_acts lays it out

  static __m256i load(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static __m256i bcast32(const uint8_t* p) {
    int32_t v;
    __builtin_memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
  }
  // Dword group g (columns 4g..4g+3) of rows 8h..8h+7 in the section at `offset`.
  static __m256i rows(const uint8_t* blk, int offset, int g, int h) { return load(blk + offset + g * 64 + h * 32); }

  // Keeps v in a register here: without it GCC re-associates the unrolled sums into
  // trees that hold every product at once, and spills.
  static void pin(__m256i& v) { __asm__("" : "+x"(v)); }

  // Each format: the weights of group g, half h, ready for product(); product() gives the
  // int16 pair sums of 4 columns x 8 rows against a broadcast activation dword; kGroups
  // of them may be added in int16 without overflow (activation quants are >= -128).
  struct Q8_0 {
    static constexpr int kBlockBytes = 544, kOffset = 0, kGroups = 1;
    struct W {
      __m256i w, abs;
    };
    static W weights(const uint8_t* blk, int g, int h) {
      const __m256i w = _mm256_xor_si256(rows(blk, 32, g, h), _mm256_set1_epi8(static_cast<char>(0x80)));
      return {w, _mm256_abs_epi8(w)};
    }
    // |w| x sign(a, w): |w| <= 128 and |a| <= 127, so 2 x 128 x 127 fits.
    static __m256i product(const W& w, __m256i a) { return _mm256_maddubs_epi16(w.abs, _mm256_sign_epi8(a, w.w)); }
  };
  struct Q4_0 {
    static constexpr int kBlockBytes = 288, kOffset = 8, kGroups = 8;
    using W = __m256i;
    static W weights(const uint8_t* blk, int g, int h) {
      const __m256i raw = rows(blk, 32, g % 4, h);
      return _mm256_and_si256(g < 4 ? raw : _mm256_srli_epi32(raw, 4), _mm256_set1_epi8(0x0f));
    }
    static __m256i product(W w, __m256i a) { return _mm256_maddubs_epi16(w, a); }
  };
  struct Q5_0 {
    static constexpr int kBlockBytes = 352, kOffset = 16, kGroups = 4;
    using W = __m256i;
    // The fifth bit: bit (g < 4 ? 4g : 16 + 4(g - 4)) + j of the row's qh, for byte j.
    static W weights(const uint8_t* blk, int g, int h) {
      const __m256i raw = rows(blk, 96, g % 4, h);
      const __m256i lo = _mm256_and_si256(g < 4 ? raw : _mm256_srli_epi32(raw, 4), _mm256_set1_epi8(0x0f));
      const int shift = g < 4 ? 4 * g : 16 + 4 * (g - 4);
      const __m256i byte_sel = _mm256_add_epi32(
          _mm256_setr_epi32(0, 0x04040404, 0x08080808, 0x0c0c0c0c, 0, 0x04040404, 0x08080808, 0x0c0c0c0c),
          _mm256_set1_epi32(0x01010101 * (shift / 8)));
      const __m256i bits = _mm256_set1_epi32(static_cast<int32_t>(0x08040201u << (shift % 8)));
      const __m256i rep = _mm256_and_si256(_mm256_shuffle_epi8(rows(blk, 32, 0, h), byte_sel), bits);
      return _mm256_or_si256(lo, _mm256_and_si256(_mm256_cmpeq_epi8(rep, bits), _mm256_set1_epi8(0x10)));
    }
    static __m256i product(W w, __m256i a) { return _mm256_maddubs_epi16(w, a); }
  };

  // acc[t][h] (rows 8h..8h+7, token t) over the nb blocks of a panel; `tiled` is the
  // tile's activations (tile_acts layout for kTokens tokens).
  template <class Fmt>
  static void tile(const uint8_t* panel, int64_t nb, const uint8_t* tiled, __m256 (&acc)[kTokens][2]) {
    constexpr int T = kTokens;
    const __m256i ones = _mm256_set1_epi16(1);
    for (int64_t b = 0; b < nb; ++b) {
      const uint8_t* blk = panel + b * Fmt::kBlockBytes;
      const uint8_t* tb = tiled + b * T * kTokenBytes;
      // Per token and row half: p, the int16 sums of the current run of kGroups groups;
      // isum, the int32 block sum, which starts at the offset correction (-offset x the
      // activation sum). Each product is folded in at once, so only these stay live.
      __m256i p[T][2], isum[T][2];
      _Pragma("GCC unroll 16")
      for (int g = 0; g < 8; ++g) {
        const typename Fmt::W w0 = Fmt::weights(blk, g, 0), w1 = Fmt::weights(blk, g, 1);
        const bool run_start = g % Fmt::kGroups == 0, run_end = g % Fmt::kGroups == Fmt::kGroups - 1;
        _Pragma("GCC unroll 16")
        for (int t = 0; t < T; ++t) {
          const __m256i a = bcast32(tb + t * 32 + 4 * g);
          _Pragma("GCC unroll 2")
          for (int h = 0; h < 2; ++h) {
            __m256i q = Fmt::product(h ? w1 : w0, a);
            if (!run_start) q = _mm256_add_epi16(p[t][h], q);
            if (!run_end) {
              p[t][h] = q;
              pin(p[t][h]);
              continue;
            }
            const __m256i wide = _mm256_madd_epi16(q, ones);
            if (g + 1 == Fmt::kGroups)  // the first run
              isum[t][h] = Fmt::kOffset ? _mm256_add_epi32(bcast32(tb + T * 36 + 4 * t), wide) : wide;
            else
              isum[t][h] = _mm256_add_epi32(isum[t][h], wide);
            pin(isum[t][h]);
          }
        }
      }
      const __m256 dw0 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk)));
      const __m256 dw1 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 16)));
      _Pragma("GCC unroll 16")
      for (int t = 0; t < T; ++t) {
        const __m256 da = _mm256_broadcast_ss(reinterpret_cast<const float*>(tb + T * 32 + 4 * t));
        acc[t][0] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[t][0]), _mm256_mul_ps(dw0, da), acc[t][0]);
        acc[t][1] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[t][1]), _mm256_mul_ps(dw1, da), acc[t][1]);
      }
    }
  }

  // The first n (<= 8) lanes of v to y.
  static void store(float* y, __m256 v, int n) {
    if (n >= 8) return _mm256_storeu_ps(y, v);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    _mm256_maskstore_ps(y, _mm256_cmpgt_epi32(_mm256_set1_epi32(n), lane), v);
  }

  // Returns the tokens computed: the whole micro-tiles, [0, n_tokens).
  template <class Fmt, class Impl>
  static int panels(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t pb,
                    int64_t pe) {
    constexpr int T = kTokens;
    const int n_tokens = x.n_tokens / T * T;
    if (n_tokens == 0) return 0;
    const int64_t nb = x.blocks();
    const size_t per_tile = static_cast<size_t>(nb) * T * kTokenBytes;
    // This thread's copy of the activations, token tile by token tile (grows to the
    // largest batch once, then is reused).
    static thread_local std::vector<uint8_t> buf;
    if (buf.size() < per_tile * (n_tokens / T)) buf.resize(per_tile * (n_tokens / T));
    for (int t0 = 0; t0 < n_tokens; t0 += T) Impl::tile_acts(x, t0, T, Fmt::kOffset, buf.data() + t0 / T * per_tile);
    const size_t panel_bytes = w.panel_bytes();
    const int block = prefill_token_block(nb * kTokenBytes, T);  // stays in L2 (token_block.h)
    for (int b0 = 0; b0 < n_tokens; b0 += block) {
      const int b1 = n_tokens - b0 < block ? n_tokens : b0 + block;
      for (int64_t p = pb; p < pe; ++p) {
        const uint8_t* panel = w.data + static_cast<size_t>(p) * panel_bytes;
        const int64_t left = w.rows - p * kPanelRows;
        const int n_rows = left < kPanelRows ? static_cast<int>(left) : kPanelRows;
        float* yp = y + p * kPanelRows;
        for (int t0 = b0; t0 < b1; t0 += T) {
          __m256 acc[T][2];
          _Pragma("GCC unroll 16")
          for (int t = 0; t < T; ++t) acc[t][0] = acc[t][1] = _mm256_setzero_ps();
          tile<Fmt>(panel, nb, buf.data() + t0 / T * per_tile, acc);
          _Pragma("GCC unroll 16")
          for (int t = 0; t < T; ++t) {
            store(yp + (t0 + t) * y_stride, acc[t][0], n_rows);
            if (n_rows > 8) store(yp + (t0 + t) * y_stride + 8, acc[t][1], n_rows - 8);
          }
        }
      }
    }
    return n_tokens;
  }

  // Computes tokens [0, n) of x for panels [pb, pe) and returns n: the whole micro-tiles
  // of tokens of a Q8_0/Q4_0/Q5_0 matmul, 0 for other types or too few tokens.
  template <class Impl>
  static int run(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t pb,
                 int64_t pe) {
    if (pb >= pe) return 0;
    switch (w.type) {
      case TensorType::Q8_0: return panels<Q8_0, Impl>(w, x, y, y_stride, pb, pe);
      case TensorType::Q4_0: return panels<Q4_0, Impl>(w, x, y, y_stride, pb, pe);
      case TensorType::Q5_0: return panels<Q5_0, Impl>(w, x, y, y_stride, pb, pe);
      default: return 0;
    }
  }
};

}  // namespace
}  // namespace wafer::kernels_avx2
