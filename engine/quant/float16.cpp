#include "engine/quant/float16.h"

#include <bit>

#include "engine/runtime/cpu_features.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace wafer {

float f16_to_f32(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    // inf, or a NaN: payload kept and quieted, as the hardware conversions do
    bits = sign | 0x7f800000 | (mant << 13) | (mant != 0 ? 0x400000u : 0u);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);  // rebias 15 -> 127
  } else if (mant == 0) {
    bits = sign;
  } else {
    // Subnormal half: value = mant * 2^-24, exactly representable in f32.
    float v = static_cast<float>(mant) * 0x1p-24f;
    bits = sign | std::bit_cast<uint32_t>(v);
  }
  return std::bit_cast<float>(bits);
}

uint16_t f32_to_f16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  uint32_t ax = x & 0x7fffffff;
  if (ax > 0x7f800000) return sign | 0x7e00 | static_cast<uint16_t>((ax >> 13) & 0x3ff);  // NaN
  if (ax >= 0x477ff000) return sign | 0x7c00;  // rounds to >= 65520: infinity
  if (ax < 0x38800000) {
    // Result is subnormal (or zero) in half: scale so that the half ulp 2^-24 is 1.0 and
    // let the FPU round to nearest even (the current rounding mode is the default).
    float a = std::bit_cast<float>(ax);
    float scaled = a * 0x1p24f;  // exact: a power-of-two scale of a value >= 2^-126 region
    // Round to an integer with ties to even using the 2^23 trick.
    float r = (scaled + 0x1p23f) - 0x1p23f;
    return sign | static_cast<uint16_t>(static_cast<uint32_t>(r));
  }
  // Normal: rebias and round the 13 dropped mantissa bits to nearest even.
  uint32_t mant_odd = (ax >> 13) & 1;
  ax += 0xfff + mant_odd;
  return sign | static_cast<uint16_t>((ax - (112u << 23)) >> 13);
}

float bf16_to_f32(uint16_t h) { return std::bit_cast<float>(static_cast<uint32_t>(h) << 16); }

uint16_t f32_to_bf16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((u >> 16) | 64);  // quiet NaN
  return static_cast<uint16_t>((u + (0x7fff + ((u >> 16) & 1))) >> 16);
}

#if defined(__x86_64__)
namespace {

// The rows through F16C (vcvtps2ph / vcvtph2ps, round to nearest even): the same bits as
// the scalar conversions above for every input, 8 at a time, where the CPU has F16C and
// the OS saves the AVX state (cpu_features().f16c; every AVX2 CPU has it).
bool have_f16c() { return cpu_features().f16c; }

[[gnu::target("avx,f16c")]] void f32_to_f16_f16c(const float* x, uint16_t* y, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; ++i) y[i] = f32_to_f16(x[i]);
}

[[gnu::target("avx,f16c")]] void f16_to_f32_f16c(const uint16_t* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i))));
  for (; i < n; ++i) y[i] = f16_to_f32(x[i]);
}

}  // namespace
#endif

void f32_to_f16_row(const float* x, uint16_t* y, size_t n) {
#if defined(__x86_64__)
  if (have_f16c()) return f32_to_f16_f16c(x, y, n);
#endif
  for (size_t i = 0; i < n; ++i) y[i] = f32_to_f16(x[i]);
}
void f32_to_bf16_row(const float* x, uint16_t* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = f32_to_bf16(x[i]);
}
void f16_to_f32_row(const uint16_t* x, float* y, size_t n) {
#if defined(__x86_64__)
  if (have_f16c()) return f16_to_f32_f16c(x, y, n);
#endif
  for (size_t i = 0; i < n; ++i) y[i] = f16_to_f32(x[i]);
}
void bf16_to_f32_row(const uint16_t* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = bf16_to_f32(x[i]);
}

}  // namespace wafer
