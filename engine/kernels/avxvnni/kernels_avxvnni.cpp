// The packed-matmul kernels for CPUs with AVX2 and AVX-VNNI but no AVX-512 (compiled with
// -mavx2 -mfma -mf16c -mavxvnni): the AVX2 kernels with one vpdpbusd per 4-byte int8 dot
// product where plain AVX2 needs vpmaddubsw + vpmaddwd + vpaddd (and, for Q8_0, a sign
// trick on top): 8 lanes, token tiles of 4. The float kernels (attention over float and
// half caches, SwiGLU) and the activation quantizers are the AVX2 ones.
//
// kernels_avxvnni_evex.cpp compiles this file again under another namespace with
// -mavx512vl -mavx512vnni instead of -mavxvnni: the same instructions in their EVEX
// encoding, which AVX-512 VNNI machines run, so the tests check this code against the
// scalar reference there even though the machine lacks AVX-VNNI itself.
#include <immintrin.h>

#include "engine/kernels/avx2/traits_avx2.h"
#include "engine/kernels/simd/attend_q8_kernels.h"
#include "engine/kernels/simd/packed_kernels.h"

#ifndef WAFER_AVXVNNI_NS
#define WAFER_AVXVNNI_NS kernels_avxvnni
#endif

namespace wafer::WAFER_AVXVNNI_NS {
namespace {

using V = Avx2Traits<true>;

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

void attend_q8(const uint8_t* q, int n_q, const uint8_t* keys, const uint16_t* values, int n_pos, int dk, int dv,
               float scale, float* scratch, float* out, int64_t out_stride) {
  simd::AttendQ8Impl<V>::attend(q, n_q, keys, values, n_pos, dk, dv, scale, scratch, out, out_stride);
}

}  // namespace wafer::WAFER_AVXVNNI_NS
