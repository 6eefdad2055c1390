// The SIMD activation quantizers (engine/kernels/simd/quantize_kernels.h, reached through
// SimdKernels::quantize) against the scalar reference quantize_act_rows (quantize_row_q8_0
// / quantize_row_q8_K plus the Q8_0 side values), byte for byte, on every instruction set
// this CPU runs: random rows over many shapes and scales, and adversarial blocks — exact
// and inexact .5 ties, equal +max / -max magnitudes, zeros, a single nonzero element,
// denormals, huge values, infinities and NaNs.
#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <limits>
#include <random>
#include <vector>

#include "engine/quant/quant.h"
#include "engine/kernels/dispatch.h"
#include "tests/support/testing.h"

using namespace wafer;

namespace {

constexpr uint8_t kSentinel = 0xA5;

struct AlignedBuf {
  explicit AlignedBuf(size_t n)
      : n(n), p(static_cast<uint8_t*>(::operator new((n + 63) / 64 * 64, std::align_val_t{64}))) {
    std::memset(p, kSentinel, n);
  }
  ~AlignedBuf() { ::operator delete(p, std::align_val_t{64}); }
  size_t n;
  uint8_t* p;
};

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

const KernelIsa kIsas[] = {KernelIsa::Avx2, KernelIsa::Avx512};

// Quantizes n_tokens rows of x (stride `stride`) for `weight_type` with the scalar reference
// and with every ISA's kernel (in two calls splitting the tokens) and requires identical
// buffers, padding included (both start as the same sentinel). Returns the reference
// buffer so callers can check properties of it.
std::vector<uint8_t> check_same(TensorType weight_type, const std::vector<float>& x, int n_tokens, int64_t cols,
                                int64_t stride) {
  const size_t bytes = quantized_acts_bytes(weight_type, cols, n_tokens);
  REQUIRE(bytes > 0);
  AlignedBuf want(bytes);
  const QuantizedActs ref = acts_view(weight_type, n_tokens, cols, want.p);
  quantize_act_rows(ref, x.data(), stride, 0, n_tokens);
  int tested = 0;
  for (KernelIsa isa : kIsas) {
    const SimdKernels* k = simd_kernels(isa);
    if (!k) continue;
    ++tested;
    AlignedBuf got(bytes);
    const QuantizedActs view = acts_view(weight_type, n_tokens, cols, got.p);
    const int split = n_tokens / 2;
    k->quantize(view, x.data(), stride, 0, split);
    k->quantize(view, x.data(), stride, split, n_tokens);
    if (std::memcmp(got.p, want.p, bytes) != 0) {
      size_t i = 0;
      while (got.p[i] == want.p[i]) ++i;
      const size_t rows_bytes = static_cast<size_t>(n_tokens) * ref.row_bytes;
      INFO(k->name << " " << tensor_type_name(ref.type) << " cols " << cols << " tokens " << n_tokens
                   << ": first difference at byte " << i << (i < rows_bytes ? " (in the rows)" : " (side values)")
                   << ": got " << int(got.p[i]) << " want " << int(want.p[i]));
      FAIL();
    }
  }
#if defined(__x86_64__)
  REQUIRE(tested > 0);  // AVX2 at least: the test case below requires it
#else
  (void)tested;  // no vectorized quantizer on this architecture
#endif
  return std::vector<uint8_t>(want.p, want.p + bytes);
}

// One row of `cols` elements, as a single-token check.
std::vector<uint8_t> check_row(TensorType weight_type, const std::vector<float>& x) {
  return check_same(weight_type, x, 1, static_cast<int64_t>(x.size()), static_cast<int64_t>(x.size()));
}

// Weight types whose activations are Q8_0 and Q8_K.
constexpr TensorType kQ8_0 = TensorType::Q4_0;
constexpr TensorType kQ8_K = TensorType::Q4_K;

}  // namespace

TEST_CASE("both instruction sets are compared when the CPU has them") {
  // The whole file is vacuous without SIMD kernels; say so loudly rather than pass silently.
#if !defined(__x86_64__)
  test::skip_test("the vectorized quantizers are x86 ones; this CPU's kernels quantize with the scalar reference");
#endif
  REQUIRE(simd_kernels(KernelIsa::Avx2) != nullptr);  // every x86-64 CI machine of ours has AVX2
  if (!simd_kernels(KernelIsa::Avx512))
    test::skip_test("this CPU has no AVX-512 (F, BW, VL and VNNI): only the AVX2 quantizers were compared");
}

TEST_CASE("random rows quantize identically: many shapes, scales and token ranges") {
  std::mt19937 rng(11);
  std::normal_distribution<float> n01(0.f, 1.f);
  std::uniform_real_distribution<float> u01(0.f, 1.f);
  std::uniform_int_distribution<int> exp10(-40, 36);
  for (TensorType wt : {kQ8_0, kQ8_K}) {
    const int64_t blk = wt == kQ8_0 ? 32 : 256;
    for (int64_t cols : {blk, 2 * blk, 3 * blk, int64_t{896}, int64_t{1024}, int64_t{4864}}) {
      if (cols % blk) continue;
      for (int n_tokens : {1, 2, 5}) {
        const int64_t stride = cols + (n_tokens > 1 ? 7 : 0);  // rows need not be contiguous
        std::vector<float> x(static_cast<size_t>(stride * n_tokens), 1e30f);
        for (int t = 0; t < n_tokens; ++t) {
          // Each token its own distribution and scale (denormal to near overflow).
          const float scale = std::pow(10.f, static_cast<float>(exp10(rng)));
          const int kind = static_cast<int>(rng() % 4);
          for (int64_t i = 0; i < cols; ++i) {
            float v = n01(rng);
            if (kind == 1) v = u01(rng) * 2 - 1;
            if (kind == 2) v = u01(rng) < 0.9f ? 0.f : v;    // sparse
            if (kind == 3) v = v * v * v * v * v;              // heavy tails
            x[t * stride + i] = v * scale;
          }
        }
        INFO(tensor_type_name(wt) << " cols " << cols << " tokens " << n_tokens);
        check_same(wt, x, n_tokens, cols, stride);
      }
    }
  }
}

TEST_CASE("exact .5 ties round half to even") {
  // Q8_0 with amax 127 has id = 1 exactly; Q8_K with max -127 has iscale = 1: every x of
  // the form k + 0.5 is then a tie. Also scaled by powers of two (still exact).
  for (float p2 : {1.f, 0x1p-10f, 0x1p20f, 0x1p-120f}) {
    std::vector<float> x8(32), xk(256);
    for (int j = 0; j < 32; ++j) x8[j] = (j == 0 ? 127.f : static_cast<float>(j * 4 - 62) + 0.5f) * p2;
    for (int j = 0; j < 256; ++j) xk[j] = (j == 5 ? -127.f : static_cast<float>(j % 253 - 126) + 0.5f) * p2;
    auto q8 = check_row(kQ8_0, x8);
    auto qk = check_row(kQ8_K, xk);
    // The ties really went to even (this checks the scalar reference too).
    const auto* b8 = reinterpret_cast<const quant::BlockQ8_0*>(q8.data());
    for (int j = 1; j < 32; ++j) REQUIRE(int{b8->qs[j]} % 2 == 0);
    const auto* bk = reinterpret_cast<const quant::BlockQ8_K*>(qk.data());
    REQUIRE(int{bk->qs[5]} == -127);
    for (int j = 0; j < 256; ++j)
      if (j != 5) REQUIRE(int{bk->qs[j]} % 2 == 0);
  }
}

TEST_CASE("inexact products that round to a .5 tie are rounded before the tie is broken") {
  // x * id rounds (in float) to exactly k + 0.5 while the exact product is not a tie: a
  // fused multiply-add would round it the other way. Searched for, then checked to exist.
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> mag(0.3f, 3.f);
  const float magic = 12582912.f;
  int fma_would_differ = 0;
  for (TensorType wt : {kQ8_0, kQ8_K}) {
    const int n = wt == kQ8_0 ? 32 : 256;
    for (int trial = 0; trial < 40; ++trial) {
      std::vector<float> x(static_cast<size_t>(n), 0.f);
      const float am = mag(rng);
      // The scale each kernel applies: id = 127 / amax (Q8_0), iscale = -127 / max (Q8_K,
      // with max = -amax here so iscale = 127 / amax too).
      x[0] = wt == kQ8_0 ? am : -am;
      const float id = 127.f / am;
      int filled = 1;
      for (int k = -126; k <= 125 && filled < n; ++k) {
        const float tie = static_cast<float>(k) + 0.5f;
        // The floats a few ulps either side of tie / id.
        float lo = tie / id, hi = lo;
        for (int step = 0; step < 8 && filled < n; ++step) {
          for (int side = 0; side < (step == 0 ? 1 : 2); ++side) {  // lo == hi at step 0
            const float c = side ? hi : lo;
            const float prod = c * id;
            if (filled == n || std::fabs(c) > am || prod != tie || static_cast<double>(c) * id == tie) continue;
            x[filled++] = c;
            if (std::fma(c, id, magic) != prod + magic) ++fma_would_differ;
          }
          lo = std::nextafter(lo, -INFINITY);
          hi = std::nextafter(hi, INFINITY);
        }
      }
      INFO(tensor_type_name(wt) << " trial " << trial << " amax " << am << " ties " << filled - 1);
      check_row(wt, x);
    }
  }
  REQUIRE(fma_would_differ > 20);  // the inputs do tell rounding-then-adding from a fused one
}

TEST_CASE("Q8_K takes the first element of largest magnitude, sign included") {
  for (int first : {0, 3, 15, 16, 17, 100, 254}) {
    for (int second : {first + 1, 255}) {
      if (second <= first || second > 255) continue;
      for (float sign : {1.f, -1.f}) {
        std::vector<float> x(256);
        for (int j = 0; j < 256; ++j) x[j] = std::sin(static_cast<float>(j)) * 0.25f;
        x[first] = 2.f * sign;
        x[second] = -2.f * sign;
        INFO("first " << first << " second " << second << " sign " << sign);
        auto q = check_row(kQ8_K, x);
        const auto* b = reinterpret_cast<const quant::BlockQ8_K*>(q.data());
        REQUIRE(int{b->qs[first]} == -127);  // the chosen max maps to -127
        REQUIRE(int{b->qs[second]} == 127);  // its opposite to +127
        REQUIRE((b->d < 0) == (sign > 0));  // d = -max / 127
      }
    }
  }
  // The tie between +max and -max in a Q8_0 block only sets amax; same bytes either way.
  std::vector<float> x(64, 0.125f);
  x[7] = -3.f;
  x[40] = 3.f;
  x[41] = -3.f;
  check_row(kQ8_0, x);
}

TEST_CASE("zeros and single nonzero elements") {
  for (TensorType wt : {kQ8_0, kQ8_K}) {
    const int n = wt == kQ8_0 ? 32 : 256;
    std::vector<float> zero(static_cast<size_t>(2 * n), 0.f);
    for (int j = 0; j < n; j += 3) zero[j] = -0.f;
    auto q = check_row(wt, zero);
    for (size_t i = 0; i < static_cast<size_t>(2 * (wt == kQ8_0 ? 34 : 292)); ++i) REQUIRE(q[i] == 0);
    for (int pos = 0; pos < n; pos += (wt == kQ8_0 ? 1 : 7)) {
      for (float v : {1.f, -1.f, 3e-3f, -5e7f, 1e-42f}) {
        std::vector<float> x(static_cast<size_t>(2 * n), 0.f);
        x[pos] = v;
        x[n + (pos * 5) % n] = -v * 0.5f;
        INFO(tensor_type_name(wt) << " pos " << pos << " value " << v);
        check_row(wt, x);
      }
    }
  }
}

TEST_CASE("denormals, huge values, infinities and NaNs") {
  const float inf = std::numeric_limits<float>::infinity();
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  const float nan_payload = from_bits(0x7fc123ab);  // low payload bits reach the quants
  const float neg_nan = from_bits(0xffc00007);
  const float denorm = std::numeric_limits<float>::denorm_min();
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> pick(0, 11);
  const float specials[] = {0.f, -0.f, denorm, -denorm * 77, 1e-39f, -3.7e-37f, FLT_MAX, -FLT_MAX,
                            inf, -inf, qnan, nan_payload};
  for (TensorType wt : {kQ8_0, kQ8_K}) {
    const int n = wt == kQ8_0 ? 32 : 256;
    // Whole blocks of denormals / tiny normals (127 / amax overflows to infinity), of huge
    // values (amax / 127 overflows the half scale), and mixes with specials sprinkled in.
    for (float base : {denorm, 3e-39f, 1e-38f, 2e-37f, 1e30f, 3e38f, FLT_MAX}) {
      std::vector<float> x(static_cast<size_t>(n));
      for (int j = 0; j < n; ++j) x[j] = base * static_cast<float>((j * 37) % 19 - 9) / 9.f;
      INFO(tensor_type_name(wt) << " base " << base);
      check_row(wt, x);
    }
    for (int trial = 0; trial < 60; ++trial) {
      std::vector<float> x(static_cast<size_t>(2 * n));
      std::normal_distribution<float> n01(0.f, 1.f);
      for (auto& v : x) v = n01(rng);
      const int count = 1 + trial % 4;
      for (int c = 0; c < count; ++c) x[rng() % x.size()] = specials[pick(rng)];
      if (trial % 5 == 0) x[rng() % x.size()] = neg_nan;
      INFO(tensor_type_name(wt) << " trial " << trial);
      check_row(wt, x);
    }
    std::vector<float> nans(static_cast<size_t>(n), nan_payload);
    check_row(wt, nans);
  }
}
