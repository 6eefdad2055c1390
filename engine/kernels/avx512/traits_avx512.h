// The 16-lane vector traits of the AVX-512 VNNI kernels (packed_kernels.h,
// float_kernels.h, attend_q8_kernels.h): one lane per row of a 16-row panel, vpdpbusd for
// the int8 dot products. Used by kernels/avx512 and by kernels/amx (whose tile kernels
// unpack weights and finish each block with these vectors).
// Included only by files compiled with the AVX-512 flags, inside an unnamed namespace:
// each file gets its own copy, so functions compiled with different -m flags are never
// merged by the linker.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace {

struct Avx512Traits {
  using I = __m512i;
  using F = __m512;
  static constexpr int kLanes = 16;
  static constexpr int kMaxTokens = 8;
  // vpdpbusd multiplies unsigned by signed bytes: Q8_0 weights are stored + 128 and the
  // kernel subtracts 128 * (sum of the activation quants) per block.
  static constexpr int kQ8Offset = 128;

  static I load(const void* p) { return _mm512_loadu_si512(p); }
  static void storei(void* p, I v) { _mm512_storeu_si512(p, v); }
  static I sub_bytes(I a, int8_t v) { return _mm512_sub_epi8(a, _mm512_set1_epi8(v)); }  // wrapping
  static I bcast32(const void* p) {
    int32_t v;
    __builtin_memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
  }
  static I set1(int32_t v) { return _mm512_set1_epi32(v); }
  // acc += the 4-byte dot products of u (unsigned) and the dword at p (signed), broadcast
  // by the instruction itself (an embedded {1to16} memory operand: one micro-op fewer per
  // product than a separate broadcast, which GCC does not fold by itself).
  static I dot_u_bcast(I acc, I u, const void* p) {
    __asm__("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(acc) : "v"(u), "m"(*static_cast<const int32_t*>(p)));
    return acc;
  }
  static I dot_q8_bcast(I acc, I w, const void* p) { return dot_u_bcast(acc, w, p); }
  // The same with a separate broadcast into a register, for the decode loop
  // (PackedImpl::row_block), where it streamed the weights faster than the embedded form.
  static I dot_u_bcast_reg(I acc, I u, const void* p) { return _mm512_dpbusd_epi32(acc, u, bcast32(p)); }
  static I and_(I a, I b) { return _mm512_and_si512(a, b); }
  static I or_(I a, I b) { return _mm512_or_si512(a, b); }
  static I add(I a, I b) { return _mm512_add_epi32(a, b); }
  static I srl(I a, int n) { return _mm512_srl_epi32(a, _mm_cvtsi32_si128(n)); }
  static I sll(I a, int n) { return _mm512_sll_epi32(a, _mm_cvtsi32_si128(n)); }
  static I sra(I a, int n) { return _mm512_sra_epi32(a, _mm_cvtsi32_si128(n)); }
  static I mullo(I a, I b) { return _mm512_mullo_epi32(a, b); }
  static I madd16(I a, I b) { return _mm512_madd_epi16(a, b); }
  // Bits shift..shift+3 of each lane's dword -> 0x10 in its bytes 0..3.
  static I spread_bits(I qh, int shift) {
    // Every byte of dword j (of each 128-bit lane) takes byte shift / 8 of that dword.
    const I byte_sel = _mm512_add_epi32(_mm512_set4_epi32(0x0c0c0c0c, 0x08080808, 0x04040404, 0),
                                        _mm512_set1_epi32(0x01010101 * (shift / 8)));
    const I bits = _mm512_set1_epi32(static_cast<int32_t>(0x08040201u << (shift % 8)));
    I rep = _mm512_shuffle_epi8(qh, byte_sel);
    __mmask64 set = _mm512_test_epi8_mask(rep, bits);
    return _mm512_maskz_mov_epi8(set, _mm512_set1_epi8(0x10));
  }
  static I bits(F a) { return _mm512_castps_si512(a); }  // the floats' bit patterns
  static F from_bits(I a) { return _mm512_castsi512_ps(a); }  // bits(f)'s inverse
  static F to_float(I a) { return _mm512_cvtepi32_ps(a); }
  static F half_to_float(const uint16_t* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static F loadf(const float* p) { return _mm512_loadu_ps(p); }
  static void storef(float* p, F v) { _mm512_storeu_ps(p, v); }
  static F subf(F a, F b) { return _mm512_sub_ps(a, b); }
  static F divf(F a, F b) { return _mm512_div_ps(a, b); }
  static float reduce_add(F v) { return _mm512_reduce_add_ps(v); }
  static float reduce_max(F v) { return _mm512_reduce_max_ps(v); }
  static F maxf(F a, F b) { return _mm512_max_ps(a, b); }
  static F minf(F a, F b) { return _mm512_min_ps(a, b); }
  static F round_nearest(F v) { return _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT); }
  static F scale_pow2(F p, F n) { return _mm512_scalef_ps(p, n); }
  static F set1f(float v) { return _mm512_set1_ps(v); }
  static F zero_f() { return _mm512_setzero_ps(); }
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F add_f(F a, F b) { return _mm512_add_ps(a, b); }
  static F fmadd(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
  static F fnmadd(F a, F b, F c) { return _mm512_fnmadd_ps(a, b, c); }
  static void store(float* y, F v, int n) {
    if (n == kLanes)
      _mm512_storeu_ps(y, v);
    else
      _mm512_mask_storeu_ps(y, static_cast<__mmask16>((1u << n) - 1), v);
  }
};

}  // namespace
