// The vector traits of the NEON kernels (packed_kernels.h, float_kernels.h,
// attend_q8_kernels.h): 8 lanes as a pair of 128-bit registers, so the shared templates
// walk a 16-row panel in two halves exactly as they do for AVX2, and every float operation
// happens in the same order (the same fused multiply-adds, the same reductions).
//  - NeonTraits<true> (kernels_neon_dotprod.cpp, -march=armv8.2-a+dotprod): SDOT, one
//    instruction per 4-byte dot product of 4 lanes;
//  - NeonTraits<false> (kernels_neon.cpp, base ARMv8-A): SMULL/SMULL2 into int16 products,
//    pairwise adds (ADDP) and a pairwise accumulate (SADALP) into the int32 lanes.
// Both multiply signed bytes, so the Q8_0 weights (stored q ^ 0x80) are flipped back to
// signed first and no offset correction is needed (kQ8Offset 0). Included only by the
// NEON files, inside an unnamed namespace.
#pragma once

#include <arm_neon.h>

#include <cstdint>

namespace {

struct NeonI {
  int32x4_t lo, hi;
};
struct NeonF {
  float32x4_t lo, hi;
};

template <bool kDot>
struct NeonTraits {
  using I = NeonI;
  using F = NeonF;
  static constexpr int kLanes = 8;
  static constexpr int kMaxTokens = 4;
  static constexpr int kQ8Offset = 0;

  static I load(const void* p) {
    const auto* q = static_cast<const int32_t*>(p);
    return {vld1q_s32(q), vld1q_s32(q + 4)};
  }
  static int32x4_t dup32(const void* p) {
    int32_t v;
    __builtin_memcpy(&v, p, 4);
    return vdupq_n_s32(v);
  }
  static I bcast32(const void* p) {
    const int32x4_t v = dup32(p);
    return {v, v};
  }
  static I set1(int32_t v) { return {vdupq_n_s32(v), vdupq_n_s32(v)}; }

  // acc[i] += sum of the 4 signed byte products of lane i of w and of a.
  static int32x4_t dot4(int32x4_t acc, int32x4_t w, int32x4_t a) {
    const int8x16_t wb = vreinterpretq_s8_s32(w), ab = vreinterpretq_s8_s32(a);
#if defined(__ARM_FEATURE_DOTPROD)
    if constexpr (kDot) return vdotq_s32(acc, wb, ab);
#else
    static_assert(!kDot, "the dot-product traits need -march=armv8.2-a+dotprod");
#endif
    // Products fit int16 (|w| <= 128, |a| <= 127), and so do pairs of them (2 * 128 * 127).
    const int16x8_t lo = vmull_s8(vget_low_s8(wb), vget_low_s8(ab));
    const int16x8_t hi = vmull_high_s8(wb, ab);
    return vpadalq_s16(acc, vpaddq_s16(lo, hi));
  }
  // u <= 63 read as signed is the same value.
  static I dot_u_bcast(I acc, I u, const void* p) {
    const int32x4_t a = dup32(p);
    return {dot4(acc.lo, u.lo, a), dot4(acc.hi, u.hi, a)};
  }
  static int32x4_t flip(int32x4_t w) { return veorq_s32(w, vdupq_n_s32(static_cast<int32_t>(0x80808080u))); }
  static I dot_q8_bcast(I acc, I stored, const void* p) {
    const int32x4_t a = dup32(p);
    return {dot4(acc.lo, flip(stored.lo), a), dot4(acc.hi, flip(stored.hi), a)};
  }
  static I and_(I a, I b) { return {vandq_s32(a.lo, b.lo), vandq_s32(a.hi, b.hi)}; }
  static I or_(I a, I b) { return {vorrq_s32(a.lo, b.lo), vorrq_s32(a.hi, b.hi)}; }
  static I add(I a, I b) { return {vaddq_s32(a.lo, b.lo), vaddq_s32(a.hi, b.hi)}; }
  static int32x4_t srl1(int32x4_t a, int n) {
    return vreinterpretq_s32_u32(vshlq_u32(vreinterpretq_u32_s32(a), vdupq_n_s32(-n)));
  }
  static I srl(I a, int n) { return {srl1(a.lo, n), srl1(a.hi, n)}; }
  static I sll(I a, int n) { return {vshlq_s32(a.lo, vdupq_n_s32(n)), vshlq_s32(a.hi, vdupq_n_s32(n))}; }
  static I sra(I a, int n) { return {vshlq_s32(a.lo, vdupq_n_s32(-n)), vshlq_s32(a.hi, vdupq_n_s32(-n))}; }
  static I mullo(I a, I b) { return {vmulq_s32(a.lo, b.lo), vmulq_s32(a.hi, b.hi)}; }
  // Pairs of int16: lane i = a[2i] * b[2i] + a[2i+1] * b[2i+1].
  static int32x4_t madd1(int32x4_t a, int32x4_t b) {
    const int16x8_t a16 = vreinterpretq_s16_s32(a), b16 = vreinterpretq_s16_s32(b);
    return vpaddq_s32(vmull_s16(vget_low_s16(a16), vget_low_s16(b16)), vmull_high_s16(a16, b16));
  }
  static I madd16(I a, I b) { return {madd1(a.lo, b.lo), madd1(a.hi, b.hi)}; }
  // Bits shift..shift+3 of each lane -> 0x10 in its bytes 0..3.
  static int32x4_t spread1(int32x4_t qh, int shift) {
    const uint32x4_t nib = vandq_u32(vreinterpretq_u32_s32(srl1(qh, shift)), vdupq_n_u32(0xf));
    const uint8x16_t rep = vreinterpretq_u8_u32(vmulq_u32(nib, vdupq_n_u32(0x01010101u)));
    const uint8x16_t bits = vreinterpretq_u8_u32(vdupq_n_u32(0x08040201u));
    return vreinterpretq_s32_u8(vandq_u8(vtstq_u8(rep, bits), vdupq_n_u8(0x10)));
  }
  static I spread_bits(I qh, int shift) { return {spread1(qh.lo, shift), spread1(qh.hi, shift)}; }
  static F to_float(I a) { return {vcvtq_f32_s32(a.lo), vcvtq_f32_s32(a.hi)}; }
  static F half_to_float(const uint16_t* p) {
    return {vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))), vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p + 4)))};
  }
  static F loadf(const float* p) { return {vld1q_f32(p), vld1q_f32(p + 4)}; }
  static void storef(float* p, F v) {
    vst1q_f32(p, v.lo);
    vst1q_f32(p + 4, v.hi);
  }
  static F subf(F a, F b) { return {vsubq_f32(a.lo, b.lo), vsubq_f32(a.hi, b.hi)}; }
  static F divf(F a, F b) { return {vdivq_f32(a.lo, b.lo), vdivq_f32(a.hi, b.hi)}; }
  // Both reductions in the AVX2 traits' order: the halves, then lanes (0,2) and (1,3), then
  // those two.
  static float reduce_max(F v) {
    const float32x4_t m = vmaxq_f32(v.lo, v.hi);
    const float32x4_t m2 = vmaxq_f32(m, vextq_f32(m, m, 2));
    return vgetq_lane_f32(m2, 0) > vgetq_lane_f32(m2, 1) ? vgetq_lane_f32(m2, 0) : vgetq_lane_f32(m2, 1);
  }
  static float reduce_add(F v) {
    const float32x4_t s = vaddq_f32(v.lo, v.hi);
    const float32x4_t s2 = vaddq_f32(s, vextq_f32(s, s, 2));
    return vgetq_lane_f32(s2, 0) + vgetq_lane_f32(s2, 1);
  }
  static F maxf(F a, F b) { return {vmaxq_f32(a.lo, b.lo), vmaxq_f32(a.hi, b.hi)}; }
  static F minf(F a, F b) { return {vminq_f32(a.lo, b.lo), vminq_f32(a.hi, b.hi)}; }
  static F round_nearest(F v) { return {vrndnq_f32(v.lo), vrndnq_f32(v.hi)}; }
  // p * 2^n, 2^n built in the exponent field in two halves (so n = 128 does not overflow).
  static float32x4_t scale1(float32x4_t p, float32x4_t n) {
    const int32x4_t ni = vcvtnq_s32_f32(n);
    const int32x4_t h = vshrq_n_s32(ni, 1);
    const int32x4_t bias = vdupq_n_s32(127);
    const float32x4_t a = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(h, bias), 23));
    const float32x4_t b = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vsubq_s32(ni, h), bias), 23));
    return vmulq_f32(vmulq_f32(p, a), b);
  }
  static F scale_pow2(F p, F n) { return {scale1(p.lo, n.lo), scale1(p.hi, n.hi)}; }
  static F set1f(float v) { return {vdupq_n_f32(v), vdupq_n_f32(v)}; }
  static F zero_f() { return set1f(0.0f); }
  static F mul(F a, F b) { return {vmulq_f32(a.lo, b.lo), vmulq_f32(a.hi, b.hi)}; }
  static F add_f(F a, F b) { return {vaddq_f32(a.lo, b.lo), vaddq_f32(a.hi, b.hi)}; }
  // a * b + c and c - a * b, fused (as the AVX2 traits' vfmadd / vfnmadd).
  static F fmadd(F a, F b, F c) { return {vfmaq_f32(c.lo, a.lo, b.lo), vfmaq_f32(c.hi, a.hi, b.hi)}; }
  static F fnmadd(F a, F b, F c) { return {vfmsq_f32(c.lo, a.lo, b.lo), vfmsq_f32(c.hi, a.hi, b.hi)}; }
  static void store(float* y, F v, int n) {
    if (n == kLanes) {
      storef(y, v);
      return;
    }
    float tmp[kLanes];
    storef(tmp, v);
    for (int i = 0; i < n; ++i) y[i] = tmp[i];
  }
};

}  // namespace
