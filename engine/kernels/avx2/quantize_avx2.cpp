// The activation quantizers (simd/quantize_kernels.h) for AVX2: 8 float lanes; bytes are
// truncated by masking to 0..255 and packing without saturation. Compiled with the flags
// of kernels_avx2.cpp.
#include <immintrin.h>

#include "engine/kernels/isa_tables.h"
#include "engine/kernels/simd/quantize_kernels.h"

namespace wafer::isa_tables {
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
  // The bits of v + 1.5 * 2^23, whose low mantissa bits hold v rounded half to even.
  static I round_bits(F v) {
    __asm__("" : "+x"(v));  // v (a product) stays rounded: no fused multiply-add
    return _mm256_castps_si256(_mm256_add_ps(v, _mm256_set1_ps(12582912.f)));
  }
  static I round_even(F v) {
    return _mm256_sub_epi32(_mm256_and_si256(round_bits(v), _mm256_set1_epi32(0x007fffff)),
                            _mm256_set1_epi32(0x00400000));
  }
  static I min127(I q) { return _mm256_min_epi32(q, _mm256_set1_epi32(127)); }
  static unsigned eq_mask(F a, F b) { return static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_EQ_OQ))); }
  static F divf(F a, F b) { return _mm256_div_ps(a, b); }
  static F zero_where_zero(F v, F a) { return _mm256_and_ps(v, _mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_NEQ_OQ)); }
  static void storef(float* p, F v) { _mm256_store_ps(p, v); }
  static void store_halves(uint16_t* p, F v) {
    _mm_store_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  static F load_halves(const uint16_t* p) { return _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(p))); }

  // Lane k of the result = op over the 8 lanes of v[k]: three rounds, each halving the
  // values per vector while doubling the vectors per register, then one permute.
  template <class Op>
  static F fold8(const F* v, Op op) {
    F s1[4], s2[2];
    for (int i = 0; i < 4; ++i)  // half h: vector 2i + h
      s1[i] = op(_mm256_permute2f128_ps(v[2 * i], v[2 * i + 1], 0x20), _mm256_permute2f128_ps(v[2 * i], v[2 * i + 1], 0x31));
    for (int i = 0; i < 2; ++i)  // half h: lanes 0-1 vector 4i + h, lanes 2-3 vector 4i + 2 + h
      s2[i] = op(_mm256_shuffle_ps(s1[2 * i], s1[2 * i + 1], 0x44), _mm256_shuffle_ps(s1[2 * i], s1[2 * i + 1], 0xEE));
    // Lane 4h + j holds vector 2j + h.
    const F r = op(_mm256_shuffle_ps(s2[0], s2[1], 0x88), _mm256_shuffle_ps(s2[0], s2[1], 0xDD));
    return _mm256_permutevar8x32_ps(r, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  }
  // Lane k = the largest lane of m[k], for 8 vectors (no NaN lanes).
  static F lane_max(const F* m) { return fold8(m, [](F a, F b) { return _mm256_max_ps(a, b); }); }
  // out[k] = the sum of the 32 signed bytes of q[k], for 8 blocks (vpmaddubsw against
  // ones, then vpmaddwd: 8 sums of 4 bytes per block).
  static void block_sums(const __m256i* q, int32_t* out) {
    F s[8];
    for (int k = 0; k < 8; ++k)
      s[k] = _mm256_castsi256_ps(
          _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), q[k]), _mm256_set1_epi16(1)));
    const F r = fold8(s, [](F a, F b) {
      return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(a), _mm256_castps_si256(b)));
    });
    _mm256_store_si256(reinterpret_cast<__m256i*>(out), _mm256_castps_si256(r));
  }
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

void quantize_avx2(const QuantizedActs& a, const float* x, int64_t x_stride, int t_begin, int t_end) {
  simd::QuantizeImpl<QV>::rows(a, x, x_stride, t_begin, t_end);
}

}  // namespace wafer::isa_tables
