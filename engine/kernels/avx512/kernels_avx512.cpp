// The packed-matmul kernels for AVX-512 with VNNI (compiled with -mavx512f -mavx512bw
// -mavx512vl -mavx512vnni -mfma -mf16c): 16 lanes = one whole 16-row panel per vector,
// vpdpbusd for the int8 dot products, token tiles of 8 for prefill.
#include <immintrin.h>

#include "engine/kernels/simd/attend_q8_kernels.h"
#include "engine/kernels/simd/float_kernels.h"
#include "engine/kernels/simd/packed_kernels.h"

namespace wafer::kernels_avx512 {
namespace {

struct V {
  using I = __m512i;
  using F = __m512;
  static constexpr int kLanes = 16;
  static constexpr int kMaxTokens = 8;
  // vpdpbusd multiplies unsigned by signed bytes: Q8_0 weights are stored + 128 and the
  // kernel subtracts 128 * (sum of the activation quants) per block.
  static constexpr int kQ8Offset = 128;

  static I load(const void* p) { return _mm512_loadu_si512(p); }
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

}  // namespace wafer::kernels_avx512
