// The packed-matmul kernels for AVX2 + FMA + F16C (compiled with -mavx2 -mfma -mf16c), for
// CPUs without AVX-512: 8 lanes = half a 16-row panel per vector, vpmaddubsw + vpmaddwd
// for the int8 dot products, token tiles of 4 (16 vector registers) for prefill; the
// prefill of the 32-column formats has its own micro-tile (prefill_avx2.h).
#include <immintrin.h>

#include "engine/kernels/avx2/prefill_avx2.h"
#include "engine/kernels/avx2/traits_avx2.h"
#include "engine/kernels/simd/attend_q8_kernels.h"
#include "engine/kernels/simd/float_kernels.h"
#include "engine/kernels/simd/packed_kernels.h"

namespace wafer::kernels_avx2 {
namespace {

using V = Avx2Traits<false>;
using Impl = simd::PackedImpl<V>;

// Tokens [t0, n_tokens) of x.
QuantizedActs tokens_from(const QuantizedActs& x, int t0) {
  QuantizedActs r = x;
  r.rows += static_cast<size_t>(t0) * x.row_bytes;
  if (r.d) r.d += t0 * x.blocks();
  if (r.sums) r.sums += t0 * x.blocks();
  r.n_tokens -= t0;
  return r;
}

// The whole token tiles of a Q8_0/Q4_0/Q5_0 prefill through LegacyPrefill, the rest (and
// every other case) through the shared kernel: the same bits either way.
template <int kPf>
void matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t pb, int64_t pe) {
  const int done = LegacyPrefill::run<Impl>(w, x, y, y_stride, pb, pe);
  if (done == 0)
    Impl::matmul<kPf>(w, x, y, y_stride, pb, pe);
  else if (done < x.n_tokens)
    Impl::matmul<kPf>(w, tokens_from(x, done), y + done * y_stride, y_stride, pb, pe);
}

}  // namespace

void packed_matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t panel_begin,
                   int64_t panel_end) {
  matmul<kPrefetchNone>(w, x, y, y_stride, panel_begin, panel_end);
}

void packed_matmul_prefetch(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                            int64_t panel_begin, int64_t panel_end) {
  matmul<kPrefetchFar>(w, x, y, y_stride, panel_begin, panel_end);
}

void packed_matmul_prefetch_near(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                                 int64_t panel_begin, int64_t panel_end) {
  matmul<kPrefetchNear>(w, x, y, y_stride, panel_begin, panel_end);
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

}  // namespace wafer::kernels_avx2
