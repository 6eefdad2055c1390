// The AVX-512 VNNI kernels and the AMX tile kernels instantiated over software models of
// their instructions (vec16_model.h for the vectors, amx/tile_model.h for the tiles), in the
// base instruction set: KernelIsa::Avx512Model and KernelIsa::AmxModel. They compute what
// the hardware kernels compute, bit for bit, so the tests run that code on every x86 CPU;
// they are never chosen to compute (a plain loop per lane is many times slower than the
// scalar backend).
#include "engine/kernels/amx/amx_attend_kernels.h"
#include "engine/kernels/amx/amx_bf16_kernels.h"
#include "engine/kernels/amx/amx_kernels.h"
#include "engine/kernels/amx/tile_model.h"
#include "engine/kernels/model/vec16_model.h"
#include "engine/kernels/simd/attend_q8_kernels.h"
#include "engine/kernels/simd/float_kernels.h"
#include "engine/kernels/simd/packed_kernels.h"

namespace wafer {

namespace kernels_avx512_model {

using V = simd::Vec16Model;

void packed_matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t panel_begin,
                   int64_t panel_end) {
  simd::PackedImpl<V>::matmul<kPrefetchNone>(w, x, y, y_stride, panel_begin, panel_end);
}

void packed_matmul_prefetch(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                            int64_t panel_begin, int64_t panel_end) {
  simd::PackedImpl<V>::matmul<kPrefetchFar>(w, x, y, y_stride, panel_begin, panel_end);
}

void packed_matmul_prefetch_near(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                                 int64_t panel_begin, int64_t panel_end) {
  simd::PackedImpl<V>::matmul<kPrefetchNear>(w, x, y, y_stride, panel_begin, panel_end);
}

void attend(const float* q, int64_t q_stride, int n_q, const float* keys, const float* values, int n_pos, int dk,
            int dv, float scale, float* scratch, float* out, int64_t out_stride, const int* n_pos_each) {
  simd::FloatImpl<V>::attend(q, q_stride, n_q, keys, values, n_pos, dk, dv, scale, scratch, out, out_stride,
                             n_pos_each);
}

void attend_f16(const float* q, int64_t q_stride, int n_q, const uint16_t* keys, const uint16_t* values, int n_pos,
                int dk, int dv, float scale, float* scratch, float* out, int64_t out_stride, const int* n_pos_each) {
  simd::FloatImpl<V>::attend(q, q_stride, n_q, keys, values, n_pos, dk, dv, scale, scratch, out, out_stride,
                             n_pos_each);
}

void attend_q8(const uint8_t* q, int n_q, const uint8_t* keys, const uint16_t* values, int n_pos, int dk, int dv,
               float scale, float* scratch, float* out, int64_t out_stride) {
  simd::AttendQ8Impl<V>::attend(q, n_q, keys, values, n_pos, dk, dv, scale, scratch, out, out_stride);
}

void swiglu(float* g, const float* u, int64_t n) { simd::FloatImpl<V>::swiglu(g, u, n); }
void add_rms_norm(float* x, const float* add, const float* w, float* y, int64_t n, float eps) {
  simd::FloatImpl<V>::add_rms_norm(x, add, w, y, n, eps);
}
void rope_neox(float* x, int n_heads, int64_t stride, int n_rot, const float* cos_t, const float* sin_t) {
  simd::FloatImpl<V>::rope_neox(x, n_heads, stride, n_rot, cos_t, sin_t);
}

}  // namespace kernels_avx512_model

namespace kernels_amx_model {
void packed_matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t panel_begin,
                   int64_t panel_end) {
  simd::AmxImpl<simd::Vec16Model, amx::TileModel>::matmul(w, x, y, y_stride, panel_begin, panel_end,
                                                          kernels_avx512_model::packed_matmul);
}
void packed_matmul_bf16(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                        int64_t panel_begin, int64_t panel_end) {
  simd::AmxBf16Impl<simd::Vec16Model, amx::TileModel>::matmul(w, x, y, y_stride, panel_begin, panel_end,
                                                              packed_matmul);
}
void packed_matmul_bf16_prefetch(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                                 int64_t panel_begin, int64_t panel_end) {
  simd::AmxBf16Impl<simd::Vec16Model, amx::TileModel>::matmul(w, x, y, y_stride, panel_begin, panel_end,
                                                              kernels_avx512_model::packed_matmul_prefetch);
}
void packed_matmul_bf16_prefetch_near(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                                      int64_t panel_begin, int64_t panel_end) {
  simd::AmxBf16Impl<simd::Vec16Model, amx::TileModel>::matmul(w, x, y, y_stride, panel_begin, panel_end,
                                                              kernels_avx512_model::packed_matmul_prefetch_near);
}
void attend_f16_tiles(const float* q, int64_t q_stride, int n_q, const uint16_t* keys, const uint16_t* values,
                      int n_pos, int dk, int dv, float scale, float* scratch, float* out, int64_t out_stride,
                      const int* n_pos_each) {
  using Impl = simd::AmxAttendImpl<simd::Vec16Model, amx::TileModel>;
  if (!Impl::handles(dk, dv))
    return kernels_avx512_model::attend_f16(q, q_stride, n_q, keys, values, n_pos, dk, dv, scale, scratch, out,
                                            out_stride, n_pos_each);
  Impl::attend(q, q_stride, n_q, keys, values, n_pos, dk, dv, scale, out, out_stride, n_pos_each);
}
}  // namespace kernels_amx_model

}  // namespace wafer
