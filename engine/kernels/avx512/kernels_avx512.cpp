// The packed-matmul kernels for AVX-512 with VNNI (compiled with -mavx512f -mavx512bw
// -mavx512vl -mavx512vnni -mfma -mf16c): 16 lanes = one whole 16-row panel per vector,
// vpdpbusd for the int8 dot products, token tiles of 8 for prefill.
#include "engine/kernels/avx512/traits_avx512.h"
#include "engine/kernels/simd/attend_q8_kernels.h"
#include "engine/kernels/simd/float_kernels.h"
#include "engine/kernels/simd/packed_kernels.h"

namespace wafer::kernels_avx512 {
namespace {

using V = Avx512Traits;

}  // namespace

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

}  // namespace wafer::kernels_avx512
