// Attention over a cache with 8-bit keys (KvCache Q8_0: llama.cpp's q8_0 key blocks, F16
// values), written over the same vector traits as packed_kernels.h and float_kernels.h.
//
// The scores are int8 dot products: the queries arrive quantized to ggml Q8_0 blocks
// (quant::quantize_row_q8_0, as llama.cpp quantizes the query for a q8_0 key cache), and
// one vpdpbusd multiplies 4 dimensions of 16 keys, where float scoring needs 4 fused
// multiply-adds and a widening. Per 32-dimension block b of head h and key p,
//   score = sum over b, ascending, of float(isum_b) * (dk[p][b] * dq[h][b])  (fused),
// times `scale` - the same operations in the same order as the scalar reference
// (forward.cpp), so both give the same scores bit for bit. Softmax and the weighted sum
// of the F16 values are float_kernels.h's.
#pragma once

#include <cstdint>

#include "engine/quant/float16.h"
#include "engine/kernels/simd/float_kernels.h"

namespace wafer::simd {

template <class V>
struct AttendQ8Impl {
  using I = typename V::I;
  using F = typename V::F;
  using Float = FloatImpl<V>;
  static constexpr int L = V::kLanes;
  static constexpr int kBlockQ8 = 34;    // a ggml Q8_0 block: half d, 32 int8 quants
  static constexpr int kMaxBlocks = 16;  // dk <= 512 (the caller checks)
  static constexpr int kHeads = L == 16 ? 7 : 3;  // heads scored together

  // Same contract as FloatImpl::attend, but q is n_q heads of dk / 32 Q8_0 blocks each
  // (head h's at q + h * dk / 32 * 34) and keys are KvCache::keys_q8 blocks.
  static void attend(const uint8_t* q, int n_q, const uint8_t* keys, const uint16_t* values, int n_pos, int dk,
                     int dv, float scale, float* scratch, float* out, int64_t out_stride) {
    float* scores = scratch;  // n_q x n_pos
    const int nb = dk / 32;
    const F vscale = V::set1f(scale);
    for (int h0 = 0; h0 < n_q; h0 += kHeads) {
      const int hb = n_q - h0 < kHeads ? n_q - h0 : kHeads;
      // The heads' block scales and the integer sums' starting values: -offset x the sum
      // of the query quants when the kernel reads the keys as unsigned (V::kQ8Offset).
      float dq[kHeads][kMaxBlocks];
      int32_t start[kHeads][kMaxBlocks];
      for (int h = 0; h < hb; ++h)
        for (int b = 0; b < nb; ++b) {
          const uint8_t* blk = q + (static_cast<int64_t>(h0 + h) * nb + b) * kBlockQ8;
          uint16_t d;
          __builtin_memcpy(&d, blk, 2);
          dq[h][b] = f16_to_f32(d);
          int32_t sum = 0;
          for (int j = 0; j < 32; ++j) sum += static_cast<int8_t>(blk[2 + j]);
          start[h][b] = -V::kQ8Offset * sum;
        }
      const uint8_t* qh = q + static_cast<int64_t>(h0) * nb * kBlockQ8;
      float* sh = scores + static_cast<int64_t>(h0) * n_pos;
      switch (hb) {
#define WAFER_Q8_HEADS(HB) \
  case HB:                 \
    if constexpr (HB <= kHeads) score_keys<HB>(qh, nb, dq, start, keys, n_pos, vscale, sh); \
    break;
        WAFER_Q8_HEADS(1) WAFER_Q8_HEADS(2) WAFER_Q8_HEADS(3) WAFER_Q8_HEADS(4) WAFER_Q8_HEADS(5)
        WAFER_Q8_HEADS(6) WAFER_Q8_HEADS(7)
#undef WAFER_Q8_HEADS
        default: break;
      }
    }
    Float::weigh_values(scores, n_q, n_pos, values, dv, out, out_stride);
  }

  // Scores of HB heads (quants at qh, head h's block b at qh + (h * nb + b) * 34) for every
  // key: scores of head h at sh + h * n_pos. Each key vector (4 dimensions of L keys) is
  // loaded once and multiplied into every head's sum; a head with few companions keeps two
  // integer chains so the dot products' latency is hidden.
  template <int HB>
  static void score_keys(const uint8_t* qh, int nb, const float (*dq)[kMaxBlocks], const int32_t (*start)[kMaxBlocks],
                         const uint8_t* keys, int n_pos, F vscale, float* sh) {
    constexpr int kVecs = 16 / L;
    constexpr bool kTwoChains = HB < 4;
    const int dk = nb * 32;
    const int64_t block_bytes = 18 * dk;
    alignas(64) float part[HB][16];  // a partial block's scores before they are copied out
    for (int p0 = 0; p0 < n_pos; p0 += 16) {
      const uint8_t* kb = keys + static_cast<int64_t>(p0 / 16) * block_bytes;
      const float* kscale = reinterpret_cast<const float*>(kb + 16 * dk);
      const int n_keys = n_pos - p0 < 16 ? n_pos - p0 : 16;
      for (int kv = 0; kv < kVecs; ++kv) {
        F sum[HB];
        _Pragma("GCC unroll 8")
        for (int h = 0; h < HB; ++h) sum[h] = V::zero_f();
        for (int b = 0; b < nb; ++b) {
          I acc[HB], acc1[HB];
          _Pragma("GCC unroll 8")
          for (int h = 0; h < HB; ++h) {
            acc[h] = V::set1(start[h][b]);
            acc1[h] = V::set1(0);
          }
          _Pragma("GCC unroll 8")
          for (int g = 0; g < 8; ++g) {
            const I key = V::load(kb + ((b * 8 + g) * 16 + kv * L) * 4);
            _Pragma("GCC unroll 8")
            for (int h = 0; h < HB; ++h) {
              const uint8_t* qa = qh + (h * nb + b) * kBlockQ8 + 2 + 4 * g;
              if (kTwoChains && (g & 1))
                acc1[h] = V::dot_q8_bcast(acc1[h], key, qa);
              else
                acc[h] = V::dot_q8_bcast(acc[h], key, qa);
            }
          }
          const F dkv = V::loadf(kscale + b * 16 + kv * L);
          _Pragma("GCC unroll 8")
          for (int h = 0; h < HB; ++h) {
            const I total = kTwoChains ? V::add(acc[h], acc1[h]) : acc[h];
            sum[h] = V::fmadd(V::to_float(total), V::mul(dkv, V::set1f(dq[h][b])), sum[h]);
          }
        }
        _Pragma("GCC unroll 8")
        for (int h = 0; h < HB; ++h)
          V::storef(n_keys == 16 ? sh + static_cast<int64_t>(h) * n_pos + p0 + kv * L : part[h] + kv * L,
                    V::mul(sum[h], vscale));
      }
      if (n_keys < 16)
        for (int h = 0; h < HB; ++h)
          for (int k = 0; k < n_keys; ++k) sh[static_cast<int64_t>(h) * n_pos + p0 + k] = part[h][k];
    }
  }
};

}  // namespace wafer::simd
