#include "engine/quant/quant_kquants.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "engine/quant/quant.h"

using namespace wafer;

namespace {

// RMS of the round-trip error relative to the RMS of the input.
double relative_rms_error(TensorType type, void (*quantize)(const float*, uint8_t*, size_t), const std::vector<float>& x) {
  std::vector<uint8_t> q(*row_bytes(type, x.size()));
  quantize(x.data(), q.data(), x.size());
  std::vector<float> back(x.size());
  REQUIRE(quant::dequantize_row(type, q.data(), back.data(), static_cast<int64_t>(x.size())));
  double err = 0, ref = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    err += (back[i] - x[i]) * (back[i] - x[i]);
    ref += x[i] * x[i];
  }
  return std::sqrt(err / ref);
}

}  // namespace

TEST_CASE("simple K-quant quantizers round-trip within their format's precision") {
  std::mt19937 rng(5);
  std::normal_distribution<float> n01(0.f, 0.15f);
  std::vector<float> x(256 * 8);
  for (auto& v : x) v = n01(rng);
  // Expected relative RMS errors of a plain min/max fit: ~2^-bits of the block range.
  CHECK(relative_rms_error(TensorType::Q5_0, quantize_row_q5_0_simple, x) < 0.06);
  CHECK(relative_rms_error(TensorType::Q4_K, quantize_row_q4_k_simple, x) < 0.12);
  CHECK(relative_rms_error(TensorType::Q6_K, quantize_row_q6_k_simple, x) < 0.03);
  // An all-zero row stays zero (no division by a zero scale).
  std::vector<float> zero(256, 0.f);
  using Quantizer = void (*)(const float*, uint8_t*, size_t);
  const std::pair<TensorType, Quantizer> quantizers[] = {{TensorType::Q5_0, quantize_row_q5_0_simple},
                                                         {TensorType::Q4_K, quantize_row_q4_k_simple},
                                                         {TensorType::Q6_K, quantize_row_q6_k_simple}};
  for (auto [type, fn] : quantizers) {
    std::vector<uint8_t> q(*row_bytes(type, 256));
    fn(zero.data(), q.data(), 256);
    std::vector<float> back(256, 1.f);
    REQUIRE(quant::dequantize_row(type, q.data(), back.data(), 256));
    for (float v : back) REQUIRE(v == 0.f);
  }
}
