// The activation quantizers (simd/quantize_kernels.h) for AVX-512: 16 float lanes, vpmovdb
// for the truncation to bytes. Compiled with the flags of kernels_avx512.cpp.
#include <immintrin.h>

#include "engine/kernels/simd/quantize_kernels.h"

namespace wafer::kernels_avx512 {
namespace {

struct QV {
  using F = __m512;
  using I = __m512i;
  static constexpr int kLanes = 16;

  static F loadf(const float* p) { return _mm512_loadu_ps(p); }
  static F absf(F v) { return _mm512_abs_ps(v); }
  static F maxf(F a, F b) { return _mm512_max_ps(a, b); }
  static float hmax(F v) { return _mm512_reduce_max_ps(v); }
  static F set1f(float v) { return _mm512_set1_ps(v); }
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static I round_even(F v) {
    __asm__("" : "+v"(v));  // the product stays rounded: no fused multiply-add
    const I bits = _mm512_castps_si512(_mm512_add_ps(v, _mm512_set1_ps(12582912.f)));
    return _mm512_sub_epi32(_mm512_and_si512(bits, _mm512_set1_epi32(0x007fffff)), _mm512_set1_epi32(0x00400000));
  }
  static I min127(I q) { return _mm512_min_epi32(q, _mm512_set1_epi32(127)); }
  static unsigned eq_mask(F a, F b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
  static __m256i pack32(const I* q) {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm512_cvtepi32_epi8(q[0])), _mm512_cvtepi32_epi8(q[1]), 1);
  }
};

}  // namespace

void quantize_acts(const QuantizedActs& a, const float* x, int64_t x_stride, int t_begin, int t_end) {
  simd::QuantizeImpl<QV>::rows(a, x, x_stride, t_begin, t_end);
}

}  // namespace wafer::kernels_avx512
