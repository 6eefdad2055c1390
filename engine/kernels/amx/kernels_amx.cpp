// The AMX prefill matmuls on the hardware tiles (TileHw), compiled with the AVX-512 flags
// (the tile instructions are inline assembly and need none). The int8 kernel
// (amx_kernels.h) is chosen only where CPUID reports AMX-TILE and AMX-INT8, Linux grants
// the tile state and a check at first use finds it bit-identical to the AVX-512 VNNI
// kernel (dispatch.cpp), to which it hands what the tiles do not take; the BF16 kernel
// (amx_bf16_kernels.h) where the CPU also has AMX-BF16 and its check finds it within its
// stated bound, handing batches of fewer than 32 tokens to the int8 kernel. Prefill
// attention (amx_attend_kernels.h) runs on the BF16 tiles where the CPU has AMX-BF16 and
// its check finds it within FP32 rounding of attention in double precision. The same code on software models of the tiles and the
// vectors, for the tests on any x86 CPU: kernels/model/kernels_model.cpp.
#include "engine/kernels/amx/amx_attend_kernels.h"
#include "engine/kernels/amx/amx_bf16_kernels.h"
#include "engine/kernels/amx/amx_kernels.h"
#include "engine/kernels/amx/tiles_hw.h"
#include "engine/kernels/avx512/traits_avx512.h"

namespace wafer {

namespace kernels_avx512 {
void packed_matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t panel_begin,
                   int64_t panel_end);
void packed_matmul_prefetch(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                            int64_t panel_begin, int64_t panel_end);
void packed_matmul_prefetch_near(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                                 int64_t panel_begin, int64_t panel_end);
void attend_f16(const float* q, int64_t q_stride, int n_q, const uint16_t* keys, const uint16_t* values, int n_pos,
                int dk, int dv, float scale, float* scratch, float* out, int64_t out_stride, const int* n_pos_each);
}

namespace kernels_amx {
void packed_matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t panel_begin,
                   int64_t panel_end) {
  simd::AmxImpl<Avx512Traits, amx::TileHw>::matmul(w, x, y, y_stride, panel_begin, panel_end,
                                                   kernels_avx512::packed_matmul);
}
void packed_matmul_bf16(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                        int64_t panel_begin, int64_t panel_end) {
  simd::AmxBf16Impl<Avx512Traits, amx::TileHw>::matmul(w, x, y, y_stride, panel_begin, panel_end, packed_matmul);
}
// The twins with software prefetch (far, near) for what the BF16 tiles do not take (the
// int8 tiles and the VNNI kernel give the same bits, with or without prefetch).
void packed_matmul_bf16_prefetch(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                                 int64_t panel_begin, int64_t panel_end) {
  simd::AmxBf16Impl<Avx512Traits, amx::TileHw>::matmul(w, x, y, y_stride, panel_begin, panel_end,
                                                       kernels_avx512::packed_matmul_prefetch);
}
void packed_matmul_bf16_prefetch_near(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                                      int64_t panel_begin, int64_t panel_end) {
  simd::AmxBf16Impl<Avx512Traits, amx::TileHw>::matmul(w, x, y, y_stride, panel_begin, panel_end,
                                                       kernels_avx512::packed_matmul_prefetch_near);
}
// Attention on the BF16 tiles (amx_attend_kernels.h); shapes the tiles do not take go to
// the AVX-512 kernel.
void attend_f16_tiles(const float* q, int64_t q_stride, int n_q, const uint16_t* keys, const uint16_t* values,
                      int n_pos, int dk, int dv, float scale, float* scratch, float* out, int64_t out_stride,
                      const int* n_pos_each) {
  using Impl = simd::AmxAttendImpl<Avx512Traits, amx::TileHw>;
  if (!Impl::handles(dk, dv))
    return kernels_avx512::attend_f16(q, q_stride, n_q, keys, values, n_pos, dk, dv, scale, scratch, out, out_stride,
                                      n_pos_each);
  Impl::attend(q, q_stride, n_q, keys, values, n_pos, dk, dv, scale, out, out_stride, n_pos_each);
}
}  // namespace kernels_amx

}  // namespace wafer
