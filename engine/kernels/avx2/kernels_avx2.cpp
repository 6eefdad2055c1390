// The packed-matmul kernels for AVX2 + FMA + F16C (compiled with -mavx2 -mfma -mf16c), for
// CPUs without AVX-512: 8 lanes = half a 16-row panel per vector, vpmaddubsw + vpmaddwd
// for the int8 dot products, token tiles of 4 (16 vector registers) for prefill.
#include <immintrin.h>

#include "engine/kernels/simd/attend_q8_kernels.h"
#include "engine/kernels/simd/float_kernels.h"
#include "engine/kernels/simd/packed_kernels.h"

namespace wafer::kernels_avx2 {
namespace {

struct V {
  using I = __m256i;
  using F = __m256;
  static constexpr int kLanes = 8;
  static constexpr int kMaxTokens = 4;
  // dot_q8 recovers the signed weight (stored q ^ 0x80) and multiplies sign-adjusted, so
  // no offset correction is needed.
  static constexpr int kQ8Offset = 0;

  static I load(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
  static I bcast32(const void* p) {
    int32_t v;
    __builtin_memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
  }
  static I set1(int32_t v) { return _mm256_set1_epi32(v); }
  // u <= 63, so the pairwise int16 sums of vpmaddubsw cannot saturate (2 * 63 * 128).
  static I dot_u(I acc, I u, I a) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, a), _mm256_set1_epi16(1)));
  }
  // |w| <= 128 and |a| <= 127 (llama.cpp's quantizers never emit -128): 2 * 128 * 127 fits.
  static I dot_q8(I acc, I stored, I a) {
    const I w = _mm256_xor_si256(stored, _mm256_set1_epi8(static_cast<char>(0x80)));
    const I p = _mm256_maddubs_epi16(_mm256_abs_epi8(w), _mm256_sign_epi8(a, w));
    return _mm256_add_epi32(acc, _mm256_madd_epi16(p, _mm256_set1_epi16(1)));
  }
  static I dot_u_bcast(I acc, I u, const void* p) { return dot_u(acc, u, bcast32(p)); }
  static I dot_q8_bcast(I acc, I w, const void* p) { return dot_q8(acc, w, bcast32(p)); }
  static I and_(I a, I b) { return _mm256_and_si256(a, b); }
  static I or_(I a, I b) { return _mm256_or_si256(a, b); }
  static I add(I a, I b) { return _mm256_add_epi32(a, b); }
  static I srl(I a, int n) { return _mm256_srl_epi32(a, _mm_cvtsi32_si128(n)); }
  static I sll(I a, int n) { return _mm256_sll_epi32(a, _mm_cvtsi32_si128(n)); }
  static I sra(I a, int n) { return _mm256_sra_epi32(a, _mm_cvtsi32_si128(n)); }
  static I mullo(I a, I b) { return _mm256_mullo_epi32(a, b); }
  static I madd16(I a, I b) { return _mm256_madd_epi16(a, b); }
  static I spread_bits(I qh, int shift) {
    const I byte_sel = _mm256_add_epi32(_mm256_setr_epi32(0, 0x04040404, 0x08080808, 0x0c0c0c0c, 0, 0x04040404,
                                                          0x08080808, 0x0c0c0c0c),
                                        _mm256_set1_epi32(0x01010101 * (shift / 8)));
    const I bits = _mm256_set1_epi32(static_cast<int32_t>(0x08040201u << (shift % 8)));
    I rep = _mm256_and_si256(_mm256_shuffle_epi8(qh, byte_sel), bits);
    return _mm256_and_si256(_mm256_cmpeq_epi8(rep, bits), _mm256_set1_epi8(0x10));
  }
  static F to_float(I a) { return _mm256_cvtepi32_ps(a); }
  static F half_to_float(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static F loadf(const float* p) { return _mm256_loadu_ps(p); }
  static void storef(float* p, F v) { _mm256_storeu_ps(p, v); }
  static F subf(F a, F b) { return _mm256_sub_ps(a, b); }
  static F divf(F a, F b) { return _mm256_div_ps(a, b); }
  static float reduce_max(F v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
  }
  static float reduce_add(F v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  static F maxf(F a, F b) { return _mm256_max_ps(a, b); }
  static F minf(F a, F b) { return _mm256_min_ps(a, b); }
  static F round_nearest(F v) { return _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  // p * 2^n, 2^n built in the exponent field in two halves (so n = 128 does not overflow).
  static F scale_pow2(F p, F n) {
    const __m256i ni = _mm256_cvtps_epi32(n);
    const __m256i h = _mm256_srai_epi32(ni, 1);
    const F a = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(h, _mm256_set1_epi32(127)), 23));
    const F b = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(ni, h), _mm256_set1_epi32(127)), 23));
    return _mm256_mul_ps(_mm256_mul_ps(p, a), b);
  }
  static F set1f(float v) { return _mm256_set1_ps(v); }
  static F zero_f() { return _mm256_setzero_ps(); }
  static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static F add_f(F a, F b) { return _mm256_add_ps(a, b); }
  static F fmadd(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }
  static F fnmadd(F a, F b, F c) { return _mm256_fnmadd_ps(a, b, c); }
  static void store(float* y, F v, int n) {
    if (n == kLanes) {
      _mm256_storeu_ps(y, v);
      return;
    }
    alignas(32) float tmp[kLanes];
    _mm256_store_ps(tmp, v);
    for (int i = 0; i < n; ++i) y[i] = tmp[i];
  }
};

}  // namespace

void packed_matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t panel_begin,
                   int64_t panel_end) {
  simd::PackedImpl<V>::matmul<false>(w, x, y, y_stride, panel_begin, panel_end);
}

void packed_matmul_prefetch(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                            int64_t panel_begin, int64_t panel_end) {
  simd::PackedImpl<V>::matmul<true>(w, x, y, y_stride, panel_begin, panel_end);
}

void attend(const float* q, int64_t q_stride, int n_q, const float* keys, const float* values, int n_pos, int dk,
            int dv, float scale, float* scratch, float* out, int64_t out_stride) {
  simd::FloatImpl<V>::attend(q, q_stride, n_q, keys, values, n_pos, dk, dv, scale, scratch, out, out_stride);
}

void attend_f16(const float* q, int64_t q_stride, int n_q, const uint16_t* keys, const uint16_t* values, int n_pos,
                int dk, int dv, float scale, float* scratch, float* out, int64_t out_stride) {
  simd::FloatImpl<V>::attend(q, q_stride, n_q, keys, values, n_pos, dk, dv, scale, scratch, out, out_stride);
}

void attend_q8(const uint8_t* q, int n_q, const uint8_t* keys, const uint16_t* values, int n_pos, int dk, int dv,
               float scale, float* scratch, float* out, int64_t out_stride) {
  simd::AttendQ8Impl<V>::attend(q, n_q, keys, values, n_pos, dk, dv, scale, scratch, out, out_stride);
}

void swiglu(float* g, const float* u, int64_t n) { simd::FloatImpl<V>::swiglu(g, u, n); }

}  // namespace wafer::kernels_avx2
