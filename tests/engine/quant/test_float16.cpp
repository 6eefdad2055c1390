// f16/bf16 conversion: known bit patterns, ties to even, and (where the compiler has
// _Float16) agreement with the hardware conversion over a wide sweep of f32 values.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/quant/float16.h"

using namespace wafer;

TEST_CASE("float16: known values and ties to even", "[float16]") {
  CHECK(f32_to_f16(1.0f) == 0x3c00);
  CHECK(f32_to_f16(-2.0f) == 0xc000);
  CHECK(f32_to_f16(0.0f) == 0x0000);
  CHECK(f32_to_f16(-0.0f) == 0x8000);
  CHECK(f32_to_f16(65504.0f) == 0x7bff);
  CHECK(f32_to_f16(65519.0f) == 0x7bff);
  CHECK(f32_to_f16(65520.0f) == 0x7c00);  // halfway to 65536: ties to even -> infinity
  CHECK(f32_to_f16(INFINITY) == 0x7c00);
  CHECK((f32_to_f16(NAN) & 0x7c00) == 0x7c00);
  CHECK((f32_to_f16(NAN) & 0x03ff) != 0);
  CHECK(f32_to_f16(0x1p-24f) == 0x0001);         // smallest subnormal
  CHECK(f32_to_f16(0x1p-25f) == 0x0000);         // half of it: tie to even (0)
  CHECK(f32_to_f16(0x1.8p-24f) == 0x0002);       // 1.5 ulp: tie to even (2)
  CHECK(f32_to_f16(0x1.8p-25f) == 0x0001);       // 0.75 ulp rounds up
  CHECK(f32_to_f16(1.0f + 0x1p-11f) == 0x3c00);  // tie, even mantissa kept
  CHECK(f32_to_f16(1.0f + 3 * 0x1p-11f) == 0x3c02);
  CHECK(f32_to_f16(0x1.ffcp-15f) == 0x0400);     // rounds up from subnormal to smallest normal
  CHECK(f16_to_f32(0x3c00) == 1.0f);
  CHECK(f16_to_f32(0x0001) == 0x1p-24f);
  CHECK(f16_to_f32(0x7bff) == 65504.0f);
  CHECK(std::isinf(f16_to_f32(0xfc00)));
  CHECK(std::isnan(f16_to_f32(0x7e00)));
}

TEST_CASE("float16: every half round-trips through f32", "[float16]") {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = f16_to_f32(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    REQUIRE(f32_to_f16(f) == h);
  }
}

// The compiler's own half type: __fp16 on AArch64 (GCC 12 has no _Float16 in C++ there),
// else _Float16 where the compiler has it.
#if defined(__aarch64__)
#define WAFER_TEST_HALF __fp16
#elif defined(__FLT16_MAX__)
#define WAFER_TEST_HALF _Float16
#endif

#if defined(WAFER_TEST_HALF)
TEST_CASE("float16: matches the compiler's _Float16 conversion", "[float16]") {
  for (uint64_t u = 0; u < (1ull << 32); u += 4099) {
    float f = std::bit_cast<float>(static_cast<uint32_t>(u));
    if (std::isnan(f)) continue;
    WAFER_TEST_HALF h = static_cast<WAFER_TEST_HALF>(f);
    uint16_t bits;
    std::memcpy(&bits, &h, 2);
    INFO("f32 bits " << u);
    REQUIRE(f32_to_f16(f) == bits);
    REQUIRE(f16_to_f32(bits) == static_cast<float>(h));
  }
}
#endif

TEST_CASE("bfloat16: round to nearest even, NaN stays NaN", "[float16]") {
  CHECK(f32_to_bf16(1.0f) == 0x3f80);
  CHECK(f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80);      // tie, even kept
  CHECK(f32_to_bf16(1.0f + 3 * 0x1p-8f) == 0x3f82);  // tie, rounds to even
  CHECK(f32_to_bf16(1.0f + 0x1.8p-8f) == 0x3f81);    // above half
  CHECK(f32_to_bf16(-3.0f) == 0xc040);
  CHECK(f32_to_bf16(std::bit_cast<float>(0x7f800001u)) == 0x7fc0);  // signalling NaN quieted
  CHECK(f32_to_bf16(INFINITY) == 0x7f80);
  CHECK(bf16_to_f32(0x3f80) == 1.0f);
  CHECK(bf16_to_f32(0xc040) == -3.0f);
  float x[3] = {1.0f, -3.0f, 0.5f};
  uint16_t y[3];
  float z[3];
  f32_to_bf16_row(x, y, 3);
  bf16_to_f32_row(y, z, 3);
  CHECK(std::memcmp(x, z, sizeof x) == 0);
  f32_to_f16_row(x, y, 3);
  f16_to_f32_row(y, z, 3);
  CHECK(std::memcmp(x, z, sizeof x) == 0);
}

TEST_CASE("float16: the row conversions give the scalar conversions' bits for every kind of input", "[float16]") {
  // Every 4,099th f32 bit pattern (all exponents, both signs, NaNs, infinities, values that
  // round to half subnormals or overflow), in rows of 1,000 (vector body and tail).
  std::vector<float> x;
  for (uint64_t u = 0; u <= 0xffffffffull; u += 4099) x.push_back(std::bit_cast<float>(static_cast<uint32_t>(u)));
  for (float v : {65504.0f, 65519.0f, 65520.0f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1p-14f, -0.0f})
    x.push_back(v);
  std::vector<uint16_t> h(x.size());
  for (size_t at = 0; at < x.size(); at += 1000) {
    const size_t n = std::min<size_t>(1000, x.size() - at);
    f32_to_f16_row(x.data() + at, h.data() + at, n);
  }
  for (size_t i = 0; i < x.size(); ++i) {
    INFO("f32 bits " << std::bit_cast<uint32_t>(x[i]));
    REQUIRE(h[i] == f32_to_f16(x[i]));
  }
  // Every half back to f32.
  std::vector<uint16_t> all(65536);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  std::vector<float> back(all.size());
  f16_to_f32_row(all.data(), back.data(), all.size() - 3);  // a tail that is not a multiple of 8
  for (size_t i = 0; i + 3 < all.size(); ++i) {
    INFO("half bits " << i);
    REQUIRE(std::bit_cast<uint32_t>(back[i]) == std::bit_cast<uint32_t>(f16_to_f32(all[i])));
  }
}
