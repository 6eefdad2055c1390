// The activation quantizers (simd/quantize_kernels.h) for AVX2: 8 float lanes; bytes are
// truncated by masking to 0..255 and packing without saturation. Compiled with the flags
// of kernels_avx2.cpp.
#include <immintrin.h>

#include "engine/kernels/simd/quantize_kernels.h"

namespace wafer::kernels_avx2 {
namespace {

struct QV {
  using F = __m256;
  using I = __m256i;
  static constexpr int kLanes = 8;

  static F loadf(const float* p) { return _mm256_loadu_ps(p); }
  static F absf(F v) { return _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff))); }
  static F maxf(F a, F b) { return _mm256_max_ps(a, b); }
  static float hmax(F v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
  }
  static F set1f(float v) { return _mm256_set1_ps(v); }
  static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static I round_even(F v) {
    __asm__("" : "+x"(v));  // the product stays rounded: no fused multiply-add
    const I bits = _mm256_castps_si256(_mm256_add_ps(v, _mm256_set1_ps(12582912.f)));
    return _mm256_sub_epi32(_mm256_and_si256(bits, _mm256_set1_epi32(0x007fffff)), _mm256_set1_epi32(0x00400000));
  }
  static I min127(I q) { return _mm256_min_epi32(q, _mm256_set1_epi32(127)); }
  static unsigned eq_mask(F a, F b) { return static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_EQ_OQ))); }
  // Low bytes of 4 x 8 lanes: masked to 0..255 the unsigned packs cannot saturate; they
  // interleave the 128-bit halves, which the final permute undoes.
  static __m256i pack32(const I* q) {
    const I m = _mm256_set1_epi32(0xff);
    const I ab = _mm256_packus_epi32(_mm256_and_si256(q[0], m), _mm256_and_si256(q[1], m));
    const I cd = _mm256_packus_epi32(_mm256_and_si256(q[2], m), _mm256_and_si256(q[3], m));
    return _mm256_permutevar8x32_epi32(_mm256_packus_epi16(ab, cd), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  }
};

}  // namespace

void quantize_acts(const QuantizedActs& a, const float* x, int64_t x_stride, int t_begin, int t_end) {
  simd::QuantizeImpl<QV>::rows(a, x, x_stride, t_begin, t_end);
}

}  // namespace wafer::kernels_avx2
