// The 8-lane vector traits of the AVX2 kernels (packed_kernels.h, float_kernels.h,
// attend_q8_kernels.h), with or without VNNI for the int8 dot products:
//  - Avx2Traits<false> (kernels/avx2, -mavx2 -mfma -mf16c): vpmaddubsw + vpmaddwd;
//  - Avx2Traits<true> (kernels/avxvnni, + -mavxvnni): one vpdpbusd per 4-byte dot product,
//    for CPUs with AVX-VNNI but no AVX-512 (Intel Alder Lake and later client cores, AMD
//    Zen 5); compiled a second time with -mavx512vl -mavx512vnni (EVEX encoding, same
//    results) so the tests can run it on AVX-512 machines too.
// Included only by files compiled with at least the AVX2 flags, inside an unnamed namespace:
// each file gets its own copy, so functions compiled with different -m flags are never
// merged by the linker.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace {

template <bool kVnni>
struct Avx2Traits {
  using I = __m256i;
  using F = __m256;
  static constexpr int kLanes = 8;
  static constexpr int kMaxTokens = 4;
  // Without VNNI, dot_q8 recovers the signed weight (stored q ^ 0x80) and multiplies
  // sign-adjusted, so no offset correction is needed; with it, vpdpbusd multiplies the
  // stored byte (q + 128) as unsigned and the kernel subtracts 128 x the activation sum.
  static constexpr int kQ8Offset = kVnni ? 128 : 0;

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
  // VNNI: one vpdpbusd (VEX-encoded in an -mavxvnni file, EVEX in the -mavx512vl test twin).
  static I vnni(I acc, I u, I a) {
#ifdef __AVXVNNI__
    return _mm256_dpbusd_avx_epi32(acc, u, a);
#else
    return _mm256_dpbusd_epi32(acc, u, a);
#endif
  }
  static I dot_u_bcast(I acc, I u, const void* p) {
    if constexpr (kVnni)
      return vnni(acc, u, bcast32(p));
    else
      return dot_u(acc, u, bcast32(p));
  }
  static I dot_q8_bcast(I acc, I w, const void* p) {
    if constexpr (kVnni)
      return vnni(acc, w, bcast32(p));
    else
      return dot_q8(acc, w, bcast32(p));
  }
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
