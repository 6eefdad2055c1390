// Block formats: dequantization of hand-built blocks, activation quantization as llama.cpp's
// x86 build does it, and dot products against dequantize-then-float-dot.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "engine/quant/quant.h"
#include "tests/engine/model_files.h"

using namespace wafer;
using namespace wafer::quant;

namespace {

uint16_t h(float f) { return f32_to_f16(f); }

std::vector<float> dequant(TensorType t, const void* src, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  REQUIRE(dequantize_row(t, src, out.data(), n));
  return out;
}

}  // namespace

TEST_CASE("quant: half and bfloat16 conversion", "[quant]") {
  CHECK(f32_to_f16(1.0f) == 0x3c00);
  CHECK(f32_to_f16(-2.0f) == 0xc000);
  CHECK(f32_to_f16(65504.0f) == 0x7bff);
  CHECK(f32_to_f16(65520.0f) == 0x7c00);          // rounds up to infinity
  CHECK(f32_to_f16(1.0f + 0x1p-11f) == 0x3c00);    // tie: to even (down)
  CHECK(f32_to_f16(1.0f + 3 * 0x1p-11f) == 0x3c02);  // tie: to even (up)
  CHECK(f32_to_f16(0x1p-24f) == 0x0001);           // smallest subnormal
  CHECK(f32_to_f16(0x1p-25f) == 0x0000);           // tie with zero: to even
  CHECK(f16_to_f32(0x0001) == 0x1p-24f);
  CHECK(f16_to_f32(0x3555) == Approx(0.33325195f));
  CHECK(std::isnan(f16_to_f32(f32_to_f16(NAN))));
  for (uint32_t bits = 0; bits < 0x7c00; ++bits)  // every finite positive half round-trips
    REQUIRE(f32_to_f16(f16_to_f32(static_cast<uint16_t>(bits))) == bits);
  CHECK(f32_to_bf16(1.0f) == 0x3f80);
  CHECK(f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80);     // tie: to even
  CHECK(f32_to_bf16(1.0f + 3 * 0x1p-8f) == 0x3f82);
  CHECK(bf16_to_f32(0xc040) == -3.0f);
}

TEST_CASE("quant: dequantize hand-built legacy blocks", "[quant]") {
  BlockQ4_0 q40{};
  q40.d = h(0.5f);
  q40.qs[0] = 0x3f;  // element 0: 15 -> 3.5, element 16: 3 -> -2.5
  q40.qs[1] = 0x80;  // element 1: 0 -> -4, element 17: 8 -> 0
  auto v = dequant(TensorType::Q4_0, &q40, 32);
  CHECK(v[0] == 3.5f);
  CHECK(v[16] == -2.5f);
  CHECK(v[1] == -4.0f);
  CHECK(v[17] == 0.0f);
  CHECK(v[2] == -4.0f);  // nibble 0

  BlockQ4_1 q41{};
  q41.d = h(0.25f);
  q41.m = h(-1.0f);
  q41.qs[0] = 0xa4;  // 4 -> 0, 10 -> 1.5
  v = dequant(TensorType::Q4_1, &q41, 32);
  CHECK(v[0] == 0.0f);
  CHECK(v[16] == 1.5f);
  CHECK(v[5] == -1.0f);

  BlockQ5_0 q50{};
  q50.d = h(2.0f);
  q50.qs[3] = 0x0f;                   // element 3: low 15, element 19: high 0
  q50.qh[0] = 1 << 3;                 // element 3 gets bit 4: 31 -> (31 - 16) * 2 = 30
  q50.qh[2] = 1 << 3;                 // element 19 gets bit 4: 16 -> 0
  v = dequant(TensorType::Q5_0, &q50, 32);
  CHECK(v[3] == 30.0f);
  CHECK(v[19] == 0.0f);
  CHECK(v[0] == -32.0f);

  BlockQ5_1 q51{};
  q51.d = h(1.0f);
  q51.m = h(0.5f);
  q51.qs[15] = 0x21;   // element 15: 1, element 31: 2
  q51.qh[3] = 0x80;    // bit 31: element 31 -> 18
  v = dequant(TensorType::Q5_1, &q51, 32);
  CHECK(v[15] == 1.5f);
  CHECK(v[31] == 18.5f);

  BlockQ8_0 q80{};
  q80.d = h(0.125f);
  q80.qs[0] = -128;
  q80.qs[31] = 127;
  v = dequant(TensorType::Q8_0, &q80, 32);
  CHECK(v[0] == -16.0f);
  CHECK(v[31] == 15.875f);

  uint16_t halves[2] = {h(1.5f), h(-0.25f)};
  v = dequant(TensorType::F16, halves, 2);
  CHECK(v == std::vector<float>{1.5f, -0.25f});
  uint16_t bf[2] = {0x3fc0, 0xbe80};
  v = dequant(TensorType::BF16, bf, 2);
  CHECK(v == std::vector<float>{1.5f, -0.25f});

  float dummy[32];
  CHECK_FALSE(dequantize_row(TensorType::Q8_0, &q80, dummy, 31));  // not whole blocks
  CHECK_FALSE(dequantize_row(TensorType::Q2_K, &q80, dummy, 256)); // unsupported type
}

TEST_CASE("quant: dequantize hand-built K-quant blocks", "[quant]") {
  SECTION("scale packing") {
    uint8_t s[12] = {};
    s[0] = 5 | (1 << 6);   // scale 0 = 5; top bits of scale 4 = 1
    s[4] = 7 | (2 << 6);   // min 0 = 7; top bits of min 4 = 2
    s[8] = 0x93;           // scale 4 low = 3, min 4 low = 9
    uint8_t sc, m;
    unpack_k_scale(0, s, &sc, &m);
    CHECK((sc == 5 && m == 7));
    unpack_k_scale(4, s, &sc, &m);
    CHECK(sc == (3 | (1 << 4)));
    CHECK(m == (9 | (2 << 4)));
  }
  SECTION("Q4_K") {
    BlockQ4_K b{};
    b.d = h(0.5f);
    b.dmin = h(0.25f);
    b.scales[1] = 2;  // sub-block 1: scale 2, min 4
    b.scales[5] = 4;
    b.qs[0] = 0x21;   // group 0: element 0 = 1, element 32 (sub-block 1) = 2
    auto v = dequant(TensorType::Q4_K, &b, 256);
    CHECK(v[0] == 0.0f);                     // sub-block 0 has scale 0 and min 0
    CHECK(v[32] == 0.5f * 2 * 2 - 0.25f * 4);  // = 1
    CHECK(v[33] == -1.0f);
  }
  SECTION("Q5_K") {
    BlockQ5_K b{};
    b.d = h(1.0f);
    b.dmin = h(1.0f);
    b.scales[2] = 1;  // sub-block 2 (group 1, low nibbles): scale 1, min 3
    b.scales[6] = 3;
    b.qs[32 + 4] = 0x0e;  // element 64 + 4: low nibble 14
    b.qh[4] = 1 << 2;     // group 1 low-nibble bit: +16
    auto v = dequant(TensorType::Q5_K, &b, 256);
    CHECK(v[68] == 30.0f - 3.0f);
    CHECK(v[69] == -3.0f);
  }
  SECTION("Q6_K") {
    BlockQ6_K b{};
    b.d = h(0.5f);
    for (int i = 0; i < 16; ++i) b.scales[i] = static_cast<int8_t>(i - 8);
    b.ql[0] = 0x21;   // element 0 low 1; element 64 low 2
    b.ql[32] = 0x43;  // element 32 low 3; element 96 low 4
    b.qh[0] = 0xe4;   // high bits: element 0: 0, element 32: 1, element 64: 2, element 96: 3
    b.ql[64] = 0x05;  // second half: element 128 low 5
    b.qh[32] = 0x02;  //   high 2 -> 37
    auto v = dequant(TensorType::Q6_K, &b, 256);
    CHECK(v[0] == 0.5f * -8 * (1 - 32));
    CHECK(v[32] == 0.5f * -6 * (3 + 16 - 32));
    CHECK(v[64] == 0.5f * -4 * (2 + 32 - 32));
    CHECK(v[96] == 0.5f * -2 * (4 + 48 - 32));
    CHECK(v[128] == 0.5f * 0 * (37 - 32));
    CHECK(v[144] == 0.5f * 1 * (0 - 32));  // sub-block 9, q = 0
  }
}

TEST_CASE("quant: Q8_0 and Q8_1 activation quantization", "[quant]") {
  float x[32] = {};
  x[0] = 127.0f;  // amax 127: d = 1, multiplier 1
  x[1] = 2.5f;    // ties round to even
  x[2] = 3.5f;
  x[3] = -2.5f;
  x[4] = 0.49f;
  BlockQ8_0 q{};
  quantize_row_q8_0(x, &q, 32);
  CHECK(f16_to_f32(q.d) == 1.0f);
  CHECK(q.qs[0] == 127);
  CHECK(q.qs[1] == 2);
  CHECK(q.qs[2] == 4);
  CHECK(q.qs[3] == -2);
  CHECK(q.qs[4] == 0);

  // amax 1.7: d = 1.7/127 as a half; q = round(x * 127/1.7) (not x / d).
  float y[32];
  for (int i = 0; i < 32; ++i) y[i] = 1.7f * static_cast<float>(i - 16) / 16.0f;
  quantize_row_q8_0(y, &q, 32);
  CHECK(q.d == f32_to_f16(1.7f / 127.f));
  for (int i = 0; i < 32; ++i) CHECK(q.qs[i] == static_cast<int>(std::nearbyint(y[i] * (127.f / 1.7f))));
  CHECK(q.qs[0] == -127);

  BlockQ8_1 q1{};
  quantize_row_q8_1(x, &q1, 32);
  CHECK(f16_to_f32(q1.d) == 1.0f);
  CHECK(f16_to_f32(q1.s) == 127 + 2 + 4 - 2);

  float zeros[32] = {};
  quantize_row_q8_0(zeros, &q, 32);
  CHECK(q.d == 0);
  CHECK(q.qs[5] == 0);
}

TEST_CASE("quant: Q8_K activation quantization", "[quant]") {
  std::vector<float> x(256, 0.0f);
  x[10] = -127.0f;  // signed max is negative: iscale = 1, d = 1
  x[11] = 2.5f;
  x[12] = 127.4f;   // larger than |max|? no: 127.4 > 127, so this is the max instead
  BlockQ8_K q{};
  quantize_row_q8_K(x.data(), &q, 256);
  // max = 127.4 (positive): iscale = -127/127.4, d = -127.4/127.
  const float iscale = -127.f / 127.4f;
  CHECK(q.d == 1 / iscale);
  CHECK(q.qs[12] == -127);
  CHECK(q.qs[10] == static_cast<int>(std::nearbyint(iscale * -127.0f)));
  CHECK(q.qs[10] == 127);  // clamp not needed: |x| <= |max|
  CHECK(q.qs[11] == static_cast<int>(std::nearbyint(iscale * 2.5f)));
  CHECK(q.bsums[0] == q.qs[10] + q.qs[11] + q.qs[12]);
  CHECK(q.bsums[1] == 0);

  x.assign(256, 0.0f);
  x[0] = -127.0f;
  x[1] = 2.5f;
  x[2] = 3.5f;
  quantize_row_q8_K(x.data(), &q, 256);
  CHECK(q.d == 1.0f);
  CHECK(q.qs[0] == -127);
  CHECK(q.qs[1] == 2);  // half to even
  CHECK(q.qs[2] == 4);

  x.assign(256, 0.0f);
  quantize_row_q8_K(x.data(), &q, 256);
  CHECK(q.d == 0.0f);
}

TEST_CASE("quant: dot products equal dequantize-then-dot", "[quant]") {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const TensorType types[] = {TensorType::F32,  TensorType::F16,  TensorType::BF16, TensorType::Q4_0,
                              TensorType::Q4_1, TensorType::Q5_0, TensorType::Q5_1, TensorType::Q8_0,
                              TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K};
  const int64_t n = 512;
  for (TensorType t : types) {
    INFO("type " << tensor_type_name(t));
    std::vector<uint8_t> w;
    if (t == TensorType::F32) {
      std::vector<float> f(n);
      for (auto& e : f) e = normal(rng);
      w.resize(n * 4);
      std::memcpy(w.data(), f.data(), w.size());
    } else {
      w = test::random_row(t, n, rng);
    }
    std::vector<float> x(n);
    for (auto& e : x) e = normal(rng);
    const TensorType at = vec_dot_type(t);
    std::vector<uint8_t> act(*row_bytes(at, n));
    REQUIRE(quantize_activations(at, x.data(), act.data(), n));

    const auto wf = dequant(t, w.data(), n);
    std::vector<float> af(n);
    if (at == TensorType::Q8_1) {  // not a weight type: dequantize by hand
      const auto* b = reinterpret_cast<const BlockQ8_1*>(act.data());
      for (int64_t i = 0; i < n; ++i) af[i] = f16_to_f32(b[i / 32].d) * b[i / 32].qs[i % 32];
    } else if (at == TensorType::Q8_K) {
      const auto* b = reinterpret_cast<const BlockQ8_K*>(act.data());
      for (int64_t i = 0; i < n; ++i) af[i] = b[i / 256].d * b[i / 256].qs[i % 256];
    } else {
      af = dequant(at, act.data(), n);
    }
    double expect = 0, mag = 0;
    for (int64_t i = 0; i < n; ++i) {
      expect += static_cast<double>(wf[i]) * af[i];
      mag += std::fabs(static_cast<double>(wf[i]) * af[i]);
    }
    const float got = vec_dot_fn(t)(n, w.data(), act.data());
    // Q4_1/Q5_1 use the half-rounded block sum s, so they are only close (not exact).
    const double tol = (at == TensorType::Q8_1 ? 2e-3 : 1e-5) * mag + 1e-6;
    CHECK(std::fabs(got - expect) <= tol);
    // and the activation rounding itself is small: within one quant step of the floats.
    double plain = 0;
    for (int64_t i = 0; i < n; ++i) plain += static_cast<double>(wf[i]) * x[i];
    CHECK(std::fabs(got - plain) <= 0.05 * mag + 1e-3);
  }
}

TEST_CASE("quant: vec dot types follow ggml-cpu", "[quant]") {
  CHECK(vec_dot_type(TensorType::F32) == TensorType::F32);
  CHECK(vec_dot_type(TensorType::F16) == TensorType::F16);
  CHECK(vec_dot_type(TensorType::BF16) == TensorType::BF16);
  CHECK(vec_dot_type(TensorType::Q4_0) == TensorType::Q8_0);
  CHECK(vec_dot_type(TensorType::Q5_0) == TensorType::Q8_0);
  CHECK(vec_dot_type(TensorType::Q8_0) == TensorType::Q8_0);
  CHECK(vec_dot_type(TensorType::Q4_1) == TensorType::Q8_1);
  CHECK(vec_dot_type(TensorType::Q5_1) == TensorType::Q8_1);
  CHECK(vec_dot_type(TensorType::Q4_K) == TensorType::Q8_K);
  CHECK(vec_dot_type(TensorType::Q6_K) == TensorType::Q8_K);
  CHECK_FALSE(is_supported_weight_type(TensorType::Q2_K));
  CHECK(vec_dot_fn(TensorType::Q3_K) == nullptr);
}
