// Prefill attention on the AMX BF16 tiles (engine/kernels/amx/amx_attend_kernels.h,
// SimdKernels::attend_f16_tiles) and its check (amx_check.h: amx_attend_close). On every
// x86 machine the kernel runs on the software models of the tiles and vectors (the AmxModel
// table); on a CPU with AMX-BF16 the hardware kernel runs too. Each is compared with the
// same attention computed in double precision, within FP32 rounding.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "engine/kernels/amx_check.h"
#include "engine/kernels/dispatch.h"
#include "engine/quant/float16.h"
#include "tests/support/testing.h"

using namespace wafer;

namespace {

// Keys and values of an F16 cache in its layouts (keys in transposed blocks of 16
// positions, value rows), their float values, and queries.
struct Case {
  int dk, dv, n_pos, n_q;
  std::vector<uint16_t> k16, v16;
  std::vector<float> keys, values, q;
  std::vector<int> limits;  // each query's causal limit
};

Case make_case(int dk, int dv, int n_pos, int n_q, float q_scale, std::mt19937& rng) {
  Case c{dk, dv, n_pos, n_q, {}, {}, {}, {}, {}, {}};
  std::normal_distribution<float> n01(0.f, 1.f);
  c.keys.resize(static_cast<size_t>(n_pos) * dk);
  c.values.resize(static_cast<size_t>(n_pos) * dv);
  c.q.resize(static_cast<size_t>(n_q) * dk);
  for (float& v : c.keys) v = f16_to_f32(f32_to_f16(n01(rng)));
  for (float& v : c.values) v = f16_to_f32(f32_to_f16(n01(rng)));
  for (float& v : c.q) v = q_scale * n01(rng);
  // The cache's last block has stale lanes past n_pos: NaN, which must not reach any result.
  c.k16.assign(static_cast<size_t>((n_pos + 15) / 16) * 16 * dk, 0x7e00);
  c.v16.resize(c.values.size());
  for (int p = 0; p < n_pos; ++p)
    for (int i = 0; i < dk; ++i)
      c.k16[(static_cast<size_t>(p / 16) * dk + i) * 16 + p % 16] = f32_to_f16(c.keys[static_cast<size_t>(p) * dk + i]);
  for (size_t i = 0; i < c.values.size(); ++i) c.v16[i] = f32_to_f16(c.values[i]);
  c.limits.resize(n_q);
  for (int j = 0; j < n_q; ++j) c.limits[j] = std::max(1, n_pos - (n_q - 1 - j) / 3);  // 3 heads per token
  return c;
}

std::vector<float> run(AttendF16Fn fn, const Case& c, float scale) {
  std::vector<float> out(static_cast<size_t>(c.n_q) * c.dv, -7.0f);
  std::vector<float> scratch(attend_scratch_floats(c.n_q, c.n_pos, c.dv));
  fn(c.q.data(), c.dk, c.n_q, c.k16.data(), c.v16.data(), c.n_pos, c.dk, c.dv, scale, scratch.data(), out.data(), c.dv,
     c.limits.data());
  return out;
}

// Every output within 1e-5 x sum_p w_p |v_p| (+ 1e-6) of the attention in double precision;
// returns the largest error in units of that bound.
double worst_vs_exact(const Case& c, float scale, const std::vector<float>& out) {
  double worst = 0;
  std::vector<double> w(c.n_pos);
  for (int j = 0; j < c.n_q; ++j) {
    const int n = c.limits[j];
    double mx = -1e300, sum = 0;
    for (int p = 0; p < n; ++p) {
      double d = 0;
      for (int i = 0; i < c.dk; ++i)
        d += double{c.q[static_cast<size_t>(j) * c.dk + i]} * c.keys[static_cast<size_t>(p) * c.dk + i];
      mx = std::max(mx, w[p] = d * scale);
    }
    for (int p = 0; p < n; ++p) sum += (w[p] = std::exp(w[p] - mx));
    for (int i = 0; i < c.dv; ++i) {
      double exact = 0, bound = 0;
      for (int p = 0; p < n; ++p) {
        exact += w[p] / sum * c.values[static_cast<size_t>(p) * c.dv + i];
        bound += w[p] / sum * std::fabs(c.values[static_cast<size_t>(p) * c.dv + i]);
      }
      const double err = std::fabs(out[static_cast<size_t>(j) * c.dv + i] - exact) / (1e-5 * bound + 1e-6);
      worst = std::max(worst, std::isnan(err) ? 1e9 : err);
    }
  }
  return worst;
}

// The shapes: the 0.5B model's heads (64), 128-dimension heads, a partial last query tile
// and key block, one position, flat and peaked scores.
void check_kernel(AttendF16Fn fn, std::mt19937& rng, bool small) {
  struct Shape {
    int dk, dv, n_pos, n_q;
    float q_scale;
  };
  const Shape shapes[] = {{64, 64, 100, 37, 0.5f}, {64, 64, 70, 21, 3.0f}, {128, 128, 45, 17, 0.3f},
                          {32, 64, 1, 3, 1.0f},     {64, 64, 200, 64, 1.0f}};
  for (const Shape& s : shapes) {
    if (small && s.n_pos * s.n_q > 7000) continue;
    const Case c = make_case(s.dk, s.dv, s.n_pos, s.n_q, s.q_scale, rng);
    const float scale = 1.0f / std::sqrt(static_cast<float>(s.dk));
    INFO("dk " << s.dk << " dv " << s.dv << " positions " << s.n_pos << " queries " << s.n_q);
    const std::vector<float> out = run(fn, c, scale);
    CHECK(worst_vs_exact(c, scale, out) <= 1.0);
    // Each query alone (n_pos = its limit): the same bits as in the batch.
    for (int j = 0; j < c.n_q; j += 5) {
      std::vector<float> alone(c.dv), scratch(attend_scratch_floats(1, c.n_pos, c.dv));
      fn(c.q.data() + static_cast<size_t>(j) * c.dk, c.dk, 1, c.k16.data(), c.v16.data(), c.limits[j], c.dk, c.dv,
         scale, scratch.data(), alone.data(), c.dv, nullptr);
      CHECK(std::memcmp(alone.data(), out.data() + static_cast<size_t>(j) * c.dv, sizeof(float) * c.dv) == 0);
    }
  }
}

// The model kernel with its first output moved by 1e-3: the check must refuse it.
void off_by_a_little(const float* q, int64_t q_stride, int n_q, const uint16_t* keys, const uint16_t* values,
                     int n_pos, int dk, int dv, float scale, float* scratch, float* out, int64_t out_stride,
                     const int* n_pos_each) {
  simd_kernels(KernelIsa::AmxModel)
      ->attend_f16_tiles(q, q_stride, n_q, keys, values, n_pos, dk, dv, scale, scratch, out, out_stride, n_pos_each);
  out[0] += 1e-3f;
}

}  // namespace

TEST_CASE("attention on the model of the BF16 tiles is FP32-exact and the same for a query alone") {
  const SimdKernels* model = simd_kernels(KernelIsa::AmxModel);
  if (!model) test::skip_test("not an x86 build: the tile kernels are not compiled");
  REQUIRE(model->attend_f16_tiles);
  std::mt19937 rng(5);
  check_kernel(model->attend_f16_tiles, rng, true);
  CHECK(amx_attend_close(model->attend_f16_tiles));
  CHECK_FALSE(amx_attend_close(off_by_a_little));
  // Shapes the tiles do not take go to the vector kernel: its results, exactly.
  const Case c = make_case(48, 48, 40, 9, 1.0f, rng);
  CHECK(run(model->attend_f16_tiles, c, 0.14f) == run(model->attend_f16, c, 0.14f));
}

TEST_CASE("attention on the hardware BF16 tiles, where the CPU has AMX-BF16") {
  const SimdKernels* hw = simd_kernels(KernelIsa::Amx);
  if (!hw || !hw->attend_f16_tiles)
    test::skip_test(std::string("the tiles do not attend here: ") + to_string(attend_tiles_state()) +
                    "; the hardware kernel was not run");
  std::mt19937 rng(6);
  check_kernel(hw->attend_f16_tiles, rng, false);
  // The model of the tiles computes the same within FP32 rounding (the hardware sums a
  // row's pairs in an order of its own).
  const Case c = make_case(64, 64, 90, 30, 1.0f, rng);
  const std::vector<float> a = run(hw->attend_f16_tiles, c, 0.125f);
  const std::vector<float> b = run(simd_kernels(KernelIsa::AmxModel)->attend_f16_tiles, c, 0.125f);
  for (size_t i = 0; i < a.size(); ++i) CHECK(std::fabs(a[i] - b[i]) <= 1e-5f);
}
