// The activation quantizers (simd/quantize_kernels.h) for AVX-512: 16 float lanes, vpmovdb
// for the truncation to bytes. Compiled with the flags of kernels_avx512.cpp.
#include <immintrin.h>

#include "engine/kernels/isa_tables.h"
#include "engine/kernels/simd/quantize_kernels.h"

namespace wafer::isa_tables {
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
  // The bits of v + 1.5 * 2^23, whose low mantissa bits hold v rounded half to even.
  static I round_bits(F v) {
    __asm__("" : "+v"(v));  // v (a product) stays rounded: no fused multiply-add
    return _mm512_castps_si512(_mm512_add_ps(v, _mm512_set1_ps(12582912.f)));
  }
  static I round_even(F v) {
    return _mm512_sub_epi32(_mm512_and_si512(round_bits(v), _mm512_set1_epi32(0x007fffff)),
                            _mm512_set1_epi32(0x00400000));
  }
  static I min127(I q) { return _mm512_min_epi32(q, _mm512_set1_epi32(127)); }
  static unsigned eq_mask(F a, F b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
  static F divf(F a, F b) { return _mm512_div_ps(a, b); }
  static F zero_where_zero(F v, F a) { return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(a, _mm512_setzero_ps(), _CMP_NEQ_OQ), v); }
  static void storef(float* p, F v) { _mm512_store_ps(p, v); }
  static void store_halves(uint16_t* p, F v) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  static F load_halves(const uint16_t* p) { return _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(p))); }

  // Lane k of the result = op over the 16 lanes of block k, given s[i] holding block 2i's
  // values in lanes 0-7 and block 2i+1's in lanes 8-15: three rounds, each halving the
  // values per block while doubling the blocks per vector, then one permute.
  template <class Op>
  static F fold_pairs(const F* s, Op op) {
    F s2[4], s3[2];
    for (int i = 0; i < 4; ++i)  // 128-bit chunk c: block 4i + c
      s2[i] = op(_mm512_shuffle_f32x4(s[2 * i], s[2 * i + 1], 0x88), _mm512_shuffle_f32x4(s[2 * i], s[2 * i + 1], 0xDD));
    for (int i = 0; i < 2; ++i)  // chunk c: lanes 0-1 block 8i + c, lanes 2-3 block 8i + 4 + c
      s3[i] = op(_mm512_shuffle_ps(s2[2 * i], s2[2 * i + 1], 0x44), _mm512_shuffle_ps(s2[2 * i], s2[2 * i + 1], 0xEE));
    // Lane 4c + j holds block 4j + c.
    const F r = op(_mm512_shuffle_ps(s3[0], s3[1], 0x88), _mm512_shuffle_ps(s3[0], s3[1], 0xDD));
    return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), r);
  }
  // Lane k = the largest lane of m[k], for 16 vectors (no NaN lanes).
  static F lane_max(const F* m) {
    F s[8];
    for (int i = 0; i < 8; ++i)
      s[i] = _mm512_max_ps(_mm512_shuffle_f32x4(m[2 * i], m[2 * i + 1], 0x44),
                           _mm512_shuffle_f32x4(m[2 * i], m[2 * i + 1], 0xEE));
    return fold_pairs(s, [](F a, F b) { return _mm512_max_ps(a, b); });
  }
  // out[k] = the sum of the 32 signed bytes of q[k], for 16 blocks: vpdpbusd against ones
  // sums 4 bytes per lane for two blocks at a time.
  static void block_sums(const __m256i* q, int32_t* out) {
    F s[8];
    for (int i = 0; i < 8; ++i) {
      const I bytes = _mm512_inserti64x4(_mm512_castsi256_si512(q[2 * i]), q[2 * i + 1], 1);
      s[i] = _mm512_castsi512_ps(_mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_set1_epi8(1), bytes));
    }
    const F r = fold_pairs(s, [](F a, F b) {
      return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(a), _mm512_castps_si512(b)));
    });
    _mm512_store_si512(out, _mm512_castps_si512(r));
  }
  static __m256i pack32(const I* q) {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm512_cvtepi32_epi8(q[0])), _mm512_cvtepi32_epi8(q[1]), 1);
  }
};

}  // namespace

void quantize_avx512(const QuantizedActs& a, const float* x, int64_t x_stride, int t_begin, int t_end) {
  simd::QuantizeImpl<QV>::rows(a, x, x_stride, t_begin, t_end);
}

}  // namespace wafer::isa_tables
