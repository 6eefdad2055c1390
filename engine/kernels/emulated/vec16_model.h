// A software model of the 16-lane vectors the AVX-512 VNNI kernels are written over
// (Avx512Traits, kernels/avx512/traits_avx512.h): the same operations with the same
// results, lane by lane, as loops over plain arrays in the base instruction set. The
// kernels of packed_kernels.h, float_kernels.h, attend_q8_kernels.h and amx_kernels.h,
// instantiated over it (kernels_emulated.cpp), run on any machine, so the tests check that
// code (its tiles, panel halves, block bookkeeping and the AMX loops) where the CPU has no
// AVX-512; on a CPU that has it they also check the model against the real instructions.
//
// Every integer operation wraps as the instruction does (computed in unsigned arithmetic);
// float operations round once, as the instructions do: fmadd and fnmadd through
// fma_rounded_once (not the C library's fmaf: mingw-w64's rounds twice),
// reduce_add in the order GCC's _mm512_reduce_add_ps adds (halves, then quarters, ...),
// max and min return the second operand when the first is not greater (smaller) or
// either is NaN, as vmaxps and vminps do. The file that uses it is compiled without FMA
// and with -ffp-contract=off, so nothing else is fused. Every operation is out of line: the
// kernels unroll their loops over tokens and blocks, and with each of them inlined as a
// 16-lane loop GCC took many minutes to compile the file.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/quant/float16.h"

namespace wafer::simd {

// a * b + c rounded once to float. The product is exact in double (24 + 24 bits) and the
// sum's rounding error is exact by TwoSum; rounding the double sum to float again is wrong
// only when it lies exactly halfway between two floats (its low 29 bits 1 followed by
// zeros) and the error is not zero: then it moves one double step toward the exact sum.
inline float fma_rounded_once(float a, float b, float c) {
  const double p = static_cast<double>(a) * static_cast<double>(b);
  double s = p + static_cast<double>(c);
  const double bv = s - p;
  const double err = (p - (s - bv)) + (static_cast<double>(c) - bv);
  const auto bits = std::bit_cast<uint64_t>(s);
  if ((bits & 0x1fffffffu) == 0x10000000u && err != 0 && std::isfinite(s))
    s = std::bit_cast<double>((err > 0) == (s > 0) ? bits + 1 : bits - 1);
  return static_cast<float>(s);
}

struct Vec16Model {
  struct I {
    int32_t v[16];
  };
  struct F {
    float v[16];
  };
  static constexpr int kLanes = 16;
  static constexpr int kMaxTokens = 8;
  static constexpr int kQ8Offset = 128;  // as Avx512Traits: Q8_0 weights are stored + 128

  static int32_t wrap(uint32_t u) { return static_cast<int32_t>(u); }
  static uint32_t u(int32_t v) { return static_cast<uint32_t>(v); }

  // ---- integer lanes ----
  [[gnu::noinline]] static I load(const void* p) {
    I r;
    std::memcpy(r.v, p, sizeof r.v);
    return r;
  }
  [[gnu::noinline]] static void storei(void* p, I v) { std::memcpy(p, v.v, sizeof v.v); }
  [[gnu::noinline]] static I set1(int32_t x) {
    I r;
    for (int32_t& e : r.v) e = x;
    return r;
  }
  [[gnu::noinline]] static I bcast32(const void* p) {
    int32_t x;
    std::memcpy(&x, p, 4);
    return set1(x);
  }
  [[gnu::noinline]] static I sub_bytes(I a, int8_t x) {
    uint8_t b[64];
    std::memcpy(b, a.v, 64);
    for (uint8_t& e : b) e = static_cast<uint8_t>(e - static_cast<uint8_t>(x));
    std::memcpy(a.v, b, 64);
    return a;
  }
  // vpdpbusd: each lane += the 4 products of its unsigned bytes with the signed bytes at p.
  [[gnu::noinline]] static I dot_u_bcast(I acc, I w, const void* p) {
    int8_t s[4];
    std::memcpy(s, p, 4);
    for (int l = 0; l < 16; ++l) {
      const uint32_t lane = u(w.v[l]);
      int32_t sum = 0;
      for (int k = 0; k < 4; ++k) sum += static_cast<int32_t>((lane >> (8 * k)) & 0xff) * s[k];
      acc.v[l] = wrap(u(acc.v[l]) + u(sum));
    }
    return acc;
  }
  [[gnu::noinline]] static I dot_q8_bcast(I acc, I w, const void* p) { return dot_u_bcast(acc, w, p); }
  template <class Op>
  [[gnu::noinline]] static I zip(I a, I b, Op op) {
    for (int l = 0; l < 16; ++l) a.v[l] = op(a.v[l], b.v[l]);
    return a;
  }
  [[gnu::noinline]] static I and_(I a, I b) { return zip(a, b, [](int32_t x, int32_t y) { return x & y; }); }
  [[gnu::noinline]] static I or_(I a, I b) { return zip(a, b, [](int32_t x, int32_t y) { return x | y; }); }
  [[gnu::noinline]] static I add(I a, I b) { return zip(a, b, [](int32_t x, int32_t y) { return wrap(u(x) + u(y)); }); }
  [[gnu::noinline]] static I mullo(I a, I b) { return zip(a, b, [](int32_t x, int32_t y) { return wrap(u(x) * u(y)); }); }
  // Shifts by a count in a register: past 31, logical shifts give 0 and sra the sign.
  [[gnu::noinline]] static I srl(I a, int n) {
    for (int32_t& e : a.v) e = n > 31 ? 0 : wrap(u(e) >> n);
    return a;
  }
  [[gnu::noinline]] static I sll(I a, int n) {
    for (int32_t& e : a.v) e = n > 31 ? 0 : wrap(u(e) << n);
    return a;
  }
  [[gnu::noinline]] static I sra(I a, int n) {
    for (int32_t& e : a.v) e = e >> (n > 31 ? 31 : n);
    return a;
  }
  // vpmaddwd: the two int16 products of each lane, added (wrapping only for -32768^2 x 2).
  [[gnu::noinline]] static I madd16(I a, I b) {
    for (int l = 0; l < 16; ++l) {
      const auto lo = [](int32_t x) { return static_cast<int64_t>(static_cast<int16_t>(u(x) & 0xffff)); };
      const auto hi = [](int32_t x) { return static_cast<int64_t>(static_cast<int16_t>(u(x) >> 16)); };
      a.v[l] = wrap(static_cast<uint32_t>(lo(a.v[l]) * lo(b.v[l]) + hi(a.v[l]) * hi(b.v[l])));
    }
    return a;
  }
  // Bits shift..shift+3 of each lane -> 0x10 in its bytes 0..3.
  [[gnu::noinline]] static I spread_bits(I qh, int shift) {
    for (int32_t& e : qh.v) {
      uint32_t out = 0;
      for (int k = 0; k < 4; ++k)
        if ((u(e) >> (shift + k)) & 1) out |= 0x10u << (8 * k);
      e = wrap(out);
    }
    return qh;
  }

  // ---- float lanes ----
  [[gnu::noinline]] static I bits(F a) {
    I r;
    std::memcpy(r.v, a.v, sizeof r.v);
    return r;
  }
  [[gnu::noinline]] static F from_bits(I a) {
    F r;
    std::memcpy(r.v, a.v, sizeof r.v);
    return r;
  }
  [[gnu::noinline]] static F to_float(I a) {
    F r;
    for (int l = 0; l < 16; ++l) r.v[l] = static_cast<float>(a.v[l]);
    return r;
  }
  [[gnu::noinline]] static F half_to_float(const uint16_t* p) {
    F r;
    for (int l = 0; l < 16; ++l) {
      uint16_t h;
      std::memcpy(&h, p + l, 2);
      r.v[l] = f16_to_f32(h);
    }
    return r;
  }
  [[gnu::noinline]] static F loadf(const float* p) {
    F r;
    std::memcpy(r.v, p, sizeof r.v);
    return r;
  }
  [[gnu::noinline]] static void storef(float* p, F v) { std::memcpy(p, v.v, sizeof v.v); }
  [[gnu::noinline]] static void store(float* y, F v, int n) { std::memcpy(y, v.v, sizeof(float) * n); }
  [[gnu::noinline]] static F set1f(float x) {
    F r;
    for (float& e : r.v) e = x;
    return r;
  }
  [[gnu::noinline]] static F zero_f() { return set1f(0.0f); }
  template <class Op>
  [[gnu::noinline]] static F zipf(F a, F b, Op op) {
    for (int l = 0; l < 16; ++l) a.v[l] = op(a.v[l], b.v[l]);
    return a;
  }
  [[gnu::noinline]] static F mul(F a, F b) { return zipf(a, b, [](float x, float y) { return x * y; }); }
  [[gnu::noinline]] static F add_f(F a, F b) { return zipf(a, b, [](float x, float y) { return x + y; }); }
  [[gnu::noinline]] static F subf(F a, F b) { return zipf(a, b, [](float x, float y) { return x - y; }); }
  [[gnu::noinline]] static F divf(F a, F b) { return zipf(a, b, [](float x, float y) { return x / y; }); }
  [[gnu::noinline]] static F maxf(F a, F b) { return zipf(a, b, [](float x, float y) { return x > y ? x : y; }); }
  [[gnu::noinline]] static F minf(F a, F b) { return zipf(a, b, [](float x, float y) { return x < y ? x : y; }); }
  [[gnu::noinline]] static F fmadd(F a, F b, F c) {
    for (int l = 0; l < 16; ++l) c.v[l] = fma_rounded_once(a.v[l], b.v[l], c.v[l]);
    return c;
  }
  [[gnu::noinline]] static F fnmadd(F a, F b, F c) {
    for (int l = 0; l < 16; ++l) c.v[l] = fma_rounded_once(-a.v[l], b.v[l], c.v[l]);
    return c;
  }
  // vrndscaleps to the nearest integer, ties to even (the default rounding mode).
  [[gnu::noinline]] static F round_nearest(F a) {
    for (float& e : a.v) e = std::nearbyint(e);
    return a;
  }
  // vscalefps for the integral n the kernels pass: p x 2^n.
  [[gnu::noinline]] static F scale_pow2(F p, F n) {
    for (int l = 0; l < 16; ++l) p.v[l] = std::ldexp(p.v[l], static_cast<int>(std::floor(n.v[l])));
    return p;
  }
  [[gnu::noinline]] static float reduce_add(F a) {
    float h[8], q[4];
    for (int l = 0; l < 8; ++l) h[l] = a.v[l + 8] + a.v[l];
    for (int l = 0; l < 4; ++l) q[l] = h[l + 4] + h[l];
    return (q[0] + q[2]) + (q[1] + q[3]);
  }
  [[gnu::noinline]] static float reduce_max(F a) {
    float m = a.v[0];
    for (int l = 1; l < 16; ++l) m = a.v[l] > m ? a.v[l] : m;
    return m;
  }
};

}  // namespace wafer::simd
