// Quantization of activation rows to Q8_0, Q8_1 and Q8_K, reproducing ggml-cpu's x86
// arithmetic exactly: the scale is computed in float the same way and rounding is
// round-half-to-even (what the SIMD round instruction and ggml's nearest_int both do).
// A different rounding flips a few quants per row and moves the logits by ~1e-3.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/quant/quant_impl.h"

namespace wafer::quant {

namespace {

// Round to nearest, ties to even, for |v| well below 2^22 (true for every q here): adding
// 1.5 * 2^23 leaves the rounded integer in the low mantissa bits (the FPU rounds ties to
// even). Plain arithmetic, so the loops below vectorize (std::nearbyint is a libm call).
int round_even(float v) {
  const float f = v + 12582912.f;
  int32_t i;
  std::memcpy(&i, &f, sizeof i);
  return (i & 0x007fffff) - 0x00400000;
}

// Shared by Q8_0 and Q8_1: scale d = amax / 127, multiplier 127 / amax (not 1 / d, which
// rounds differently), quants written to qs. Returns d.
float quantize_block_32(const float* x, int8_t* qs) {
  float amax = 0;
  for (int j = 0; j < kQK; ++j) {
    const float a = std::fabs(x[j]);
    amax = a > amax ? a : amax;  // fmax but for NaN, and vectorizable
  }
  const float d = amax / 127.f;
  const float id = amax != 0.f ? 127.f / amax : 0.f;
  for (int j = 0; j < kQK; ++j) qs[j] = static_cast<int8_t>(round_even(x[j] * id));
  return d;
}

}  // namespace

void quantize_row_q8_0(const float* x, BlockQ8_0* y, int64_t n) {
  for (int64_t i = 0; i < n / kQK; ++i, x += kQK) y[i].d = f32_to_f16(quantize_block_32(x, y[i].qs));
}

void quantize_row_q8_1(const float* x, BlockQ8_1* y, int64_t n) {
  for (int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    const float d = quantize_block_32(x, y[i].qs);
    int sum = 0;
    for (int j = 0; j < kQK; ++j) sum += y[i].qs[j];
    y[i].d = f32_to_f16(d);
    y[i].s = f32_to_f16(d * static_cast<float>(sum));
  }
}

void quantize_row_q8_K(const float* x, BlockQ8_K* y, int64_t n) {
  for (int64_t i = 0; i < n / kQK_K; ++i, x += kQK_K) {
    BlockQ8_K& b = y[i];
    // The signed element of largest magnitude (the first one on ties).
    float max = 0, amax = 0;
    for (int j = 0; j < kQK_K; ++j) {
      const float a = std::fabs(x[j]);
      if (a > amax) {
        amax = a;
        max = x[j];
      }
    }
    if (amax == 0) {
      std::memset(&b, 0, sizeof b);
      continue;
    }
    // Dividing by the signed max maps it to exactly -127, so only +128 could overflow int8.
    const float iscale = -127.f / max;
    for (int j = 0; j < kQK_K; ++j) {
      const int v = round_even(iscale * x[j]);
      b.qs[j] = static_cast<int8_t>(v < 127 ? v : 127);
    }
    for (int g = 0; g < kQK_K / 16; ++g) {
      int sum = 0;
      for (int j = 0; j < 16; ++j) sum += b.qs[g * 16 + j];
      b.bsums[g] = static_cast<int16_t>(sum);
    }
    b.d = 1 / iscale;
  }
}

}  // namespace wafer::quant
