// The AMX kernel tables made from the tile templates for vector traits V and tile
// instructions Tiles (TileHw for the hardware, TileModel for the tests), over the
// AVX-512 VNNI table kBase they extend: what the tiles do not take (decode, the K-quants,
// attention shapes the tiles do not hold) goes to kBase's kernels. The tables set only the
// fields the tiles change; dispatch.cpp completes them from kBase.
//  - int8 tiles (TDPBSSD, amx_kernels.h): matmul, bit for bit kBase's results; the prefetch
//    twins stay kBase's, which give the same bits.
//  - BF16 tiles (TDPBF16PS, amx_bf16_kernels.h): matmul and its prefetch twins, handing
//    batches of fewer than 32 tokens to the int8 tiles (matmul) or to kBase's twins.
// Both carry prefill attention on the BF16 tiles (amx_attend_kernels.h); dispatch.cpp
// drops it from the hardware tables unless attend_tiles_state() allows it.
#pragma once

#include "engine/kernels/amx/amx_attend_kernels.h"
#include "engine/kernels/amx/amx_bf16_kernels.h"
#include "engine/kernels/amx/amx_kernels.h"
#include "engine/kernels/dispatch.h"
#include "engine/kernels/simd/make_kernels.h"

namespace wafer::simd {

template <class V, class Tiles, const SimdKernels& kBase>
struct TileKernels {
  static void int8(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t pb,
                   int64_t pe) {
    AmxImpl<V, Tiles>::matmul(w, x, y, y_stride, pb, pe, kBase.matmul);
  }
  struct Bf16 {
    template <int kPf>
    static void matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t pb,
                       int64_t pe) {
      const PackedMatmulFn other = kPf == kPrefetchFar    ? kBase.matmul_prefetch
                                   : kPf == kPrefetchNear ? kBase.matmul_prefetch_near
                                   : kPf == kPrefetchL2   ? kBase.matmul_prefetch_l2
                                                          : &int8;
      AmxBf16Impl<V, Tiles>::matmul(w, x, y, y_stride, pb, pe, other);
    }
  };
  static void attend(const float* q, int64_t q_stride, int n_q, const uint16_t* keys, const uint16_t* values,
                     int n_pos, int dk, int dv, float scale, float* scratch, float* out, int64_t out_stride,
                     const int* n_pos_each) {
    using Impl = AmxAttendImpl<V, Tiles>;
    if (!Impl::handles(dk, dv))
      return kBase.attend_f16(q, q_stride, n_q, keys, values, n_pos, dk, dv, scale, scratch, out, out_stride,
                              n_pos_each);
    Impl::attend(q, q_stride, n_q, keys, values, n_pos, dk, dv, scale, out, out_stride, n_pos_each);
  }
};

template <class V, class Tiles, const SimdKernels& kBase>
constexpr SimdKernels make_int8_tile_kernels(KernelIsa isa, const char* name) {
  using K = TileKernels<V, Tiles, kBase>;
  return SimdKernels{.isa = isa, .name = name, .matmul = &K::int8, .attend_f16_tiles = &K::attend};
}

template <class V, class Tiles, const SimdKernels& kBase>
constexpr SimdKernels make_bf16_tile_kernels(KernelIsa isa, const char* name) {
  using K = TileKernels<V, Tiles, kBase>;
  SimdKernels k = make_matmul_kernels<typename K::Bf16>(isa, name);
  k.attend_f16_tiles = &K::attend;
  return k;
}

}  // namespace wafer::simd
