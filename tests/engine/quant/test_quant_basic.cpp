// Q8_0/Q4_0 quantization against values worked out by hand from ggml's reference formulas.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "engine/quant/quant_basic.h"

using namespace wafer;

namespace {
uint16_t scale_bits(const uint8_t* block) {
  uint16_t d;
  std::memcpy(&d, block, 2);
  return d;
}
}  // namespace

TEST_CASE("q8_0: scale = max|x| / 127, values rounded half away from zero", "[quantize]") {
  // x = j - 16: amax 16, d = 16/127 = 0.12598 -> f16 0x3008 (0.125 * (1 + 8/1024)),
  // 1/d = 7.9375 exactly, q = round((j - 16) * 7.9375).
  std::vector<float> x(32);
  for (int j = 0; j < 32; ++j) x[j] = static_cast<float>(j - 16);
  uint8_t b[34];
  quantize_row_q8_0(x.data(), b, 32);
  CHECK(scale_bits(b) == 0x3008);
  auto q = [&](int j) { return static_cast<int8_t>(b[2 + j]); };
  CHECK(q(0) == -127);   // -16 * 7.9375
  CHECK(q(1) == -119);   // -119.06
  CHECK(q(16) == 0);
  CHECK(q(17) == 8);     // 7.94
  CHECK(q(18) == 16);    // 15.875
  CHECK(q(20) == 32);    // 31.75
  CHECK(q(31) == 119);   // 119.06

  // amax 127 -> d = 1 (0x3c00): exact halves round away from zero (roundf, not rint).
  std::vector<float> y(64, 0.0f);
  y[0] = 127.0f;
  y[1] = 2.5f;
  y[2] = -2.5f;
  y[3] = 0.49f;
  y[4] = -126.5f;
  uint8_t c[68];
  quantize_row_q8_0(y.data(), c, 64);
  CHECK(scale_bits(c) == 0x3c00);
  CHECK(static_cast<int8_t>(c[2]) == 127);
  CHECK(static_cast<int8_t>(c[3]) == 3);
  CHECK(static_cast<int8_t>(c[4]) == -3);
  CHECK(c[5] == 0);
  CHECK(static_cast<int8_t>(c[6]) == -127);
  // Second block is all zeros: d = 0 and every q = 0.
  CHECK(scale_bits(c + 34) == 0);
  for (int j = 0; j < 32; ++j) CHECK(c[36 + j] == 0);
}

TEST_CASE("q4_0: scale = (signed max-magnitude value) / -8, nibbles packed low/high", "[quantize]") {
  // x = j - 16: the largest magnitude is x[0] = -16, d = 2 (0x4000), 1/d = 0.5,
  // q = min(15, trunc(x * 0.5 + 8.5)); byte j = q[j] | q[j + 16] << 4.
  std::vector<float> x(32);
  for (int j = 0; j < 32; ++j) x[j] = static_cast<float>(j - 16);
  uint8_t b[18];
  quantize_row_q4_0(x.data(), b, 32);
  CHECK(scale_bits(b) == 0x4000);
  CHECK(b[2 + 0] == 0x80);   // q0 = trunc(0.5) = 0, q16 = trunc(8.5) = 8
  CHECK(b[2 + 1] == 0x91);   // q1 = 1, q17 = trunc(9) = 9
  CHECK(b[2 + 2] == 0x91);   // q2 = trunc(1.5) = 1, q18 = trunc(9.5) = 9
  CHECK(b[2 + 15] == 0xf8);  // q15 = 8, q31 = min(15, 16) = 15

  // A positive maximum gives a negative scale: x = 16 - j -> max 16, d = -2 (0xc000).
  for (int j = 0; j < 32; ++j) x[j] = static_cast<float>(16 - j);
  quantize_row_q4_0(x.data(), b, 32);
  CHECK(scale_bits(b) == 0xc000);
  CHECK(b[2 + 0] == 0x80);   // 16 * -0.5 + 8.5 = 0.5 -> 0; x16 = 0 -> 8

  // All zeros: d = 0 / -8 = -0.0 (0x8000, as ggml writes it), every nibble 8.
  std::vector<float> z(32, 0.0f);
  quantize_row_q4_0(z.data(), b, 32);
  CHECK(scale_bits(b) == 0x8000);
  for (int j = 0; j < 16; ++j) CHECK(b[2 + j] == 0x88);
}

TEST_CASE("q8_0: matches ggml's formula with roundf on many random blocks", "[quantize]") {
  // The library rounds without libm for speed; this is the formula as ggml writes it.
  uint32_t state = 12345;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.0f;  // [0, 1)
  };
  std::vector<float> x(32);
  uint8_t got[34], want[34];
  for (int block = 0; block < 20000; ++block) {
    float range = block % 3 == 0 ? 1e-3f : block % 3 == 1 ? 1.0f : 300.0f;
    for (float& v : x) v = (next() * 2 - 1) * range;
    if (block % 7 == 0) x[block % 32] = range;  // a maximum exactly at the range
    quantize_row_q8_0(x.data(), got, 32);
    float amax = 0;
    for (float v : x) amax = std::max(amax, std::fabs(v));
    float d = amax / 127.0f, id = d != 0 ? 1.0f / d : 0.0f;
    std::memcpy(want, got, 2);  // the scale conversion is tested in test_float16
    for (int j = 0; j < 32; ++j) want[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(std::roundf(x[j] * id)));
    INFO("block " << block);
    REQUIRE(std::memcmp(got, want, 34) == 0);
  }
}
