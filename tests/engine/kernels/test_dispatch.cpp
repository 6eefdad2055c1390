// Every packed-matmul kernel this CPU can run (AVX2 and AVX-512, or NEON on AArch64) against the scalar
// reference dot products of quant.h, on random ggml blocks: odd row counts (a partly
// filled last panel), several token counts (decode, full prefill tiles and remainders),
// and panel slices. With power-of-two scales every float operation is exact, so there
// the results must be identical; with random scales they agree to float rounding.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/quant/float16.h"
#include "engine/compute/forward_ops.h"
#include "engine/compute/kv_cache.h"
#include "engine/model/model_config.h"
#include "engine/kernels/dispatch.h"
#include "engine/runtime/cpu_features.h"
#include "engine/quant/quant.h"
#include "engine/quant/quant_repack.h"
#include "engine/runtime/float_mode.h"
#include "tests/support/testing.h"

using namespace wafer;

namespace {

using AlignedBuf = test::AlignedBytes;

// Byte offsets of the half-precision scales in each ggml block.
std::vector<int> half_fields(TensorType t) {
  switch (t) {
    case TensorType::Q4_K:
    case TensorType::Q5_K: return {0, 2};
    case TensorType::Q6_K: return {208};
    default: return {0};
  }
}

uint16_t pow2_half(int e) { return static_cast<uint16_t>((15 + e) << 10); }  // 2^e

// rows x cols of random blocks; scales either powers of two (exact) or random.
std::vector<uint8_t> random_weights(TensorType t, int64_t rows, int64_t cols, bool exact, std::mt19937& rng) {
  auto info = tensor_type_info(static_cast<uint32_t>(t));
  const int64_t nb = cols / info->block_elems;
  std::vector<uint8_t> w(static_cast<size_t>(rows * nb) * info->block_bytes);
  for (auto& b : w) b = static_cast<uint8_t>(rng());
  std::uniform_real_distribution<float> scale(0.002f, 0.02f);
  for (int64_t i = 0; i < rows * nb; ++i) {
    uint8_t* blk = w.data() + i * info->block_bytes;
    int k = 0;
    for (int off : half_fields(t)) {
      uint16_t h = exact ? pow2_half(-3 - k) : f32_to_f16(scale(rng));
      std::memcpy(blk + off, &h, 2);
      ++k;
    }
  }
  return w;
}

// n_tokens rows of activations in the weight's vec_dot format.
std::vector<uint8_t> random_acts(TensorType wt, int n_tokens, int64_t cols, bool exact, std::mt19937& rng) {
  TensorType at = quant::vec_dot_type(wt);
  const size_t rb = *row_bytes(at, static_cast<uint64_t>(cols));
  std::vector<uint8_t> a(rb * static_cast<size_t>(n_tokens));
  if (!exact) {
    std::normal_distribution<float> n01(0.f, 1.f);
    std::vector<float> x(static_cast<size_t>(cols));
    for (int t = 0; t < n_tokens; ++t) {
      for (auto& v : x) v = n01(rng);
      REQUIRE(quant::quantize_activations(at, x.data(), a.data() + t * rb, cols));
    }
    return a;
  }
  std::uniform_int_distribution<int> q(-127, 127);
  for (int t = 0; t < n_tokens; ++t) {
    uint8_t* row = a.data() + t * rb;
    if (at == TensorType::Q8_0) {
      auto* b = reinterpret_cast<quant::BlockQ8_0*>(row);
      for (int64_t i = 0; i < cols / 32; ++i) {
        b[i].d = pow2_half(-2);
        for (auto& v : b[i].qs) v = static_cast<int8_t>(q(rng));
      }
    } else {
      auto* b = reinterpret_cast<quant::BlockQ8_K*>(row);
      for (int64_t i = 0; i < cols / 256; ++i) {
        b[i].d = 0.25f;
        for (auto& v : b[i].qs) v = static_cast<int8_t>(q(rng));
        for (int g = 0; g < 16; ++g) {
          int s = 0;
          for (int j = 0; j < 16; ++j) s += b[i].qs[16 * g + j];
          b[i].bsums[g] = static_cast<int16_t>(s);
        }
      }
    }
  }
  return a;
}

struct Reference {
  std::vector<float> y;          // n_tokens x rows
  std::vector<float> magnitude;  // sum of |w_i * x_i|: the scale of the rounding error
};

// Activation row dequantized (Q8_0 through quant.h, Q8_K by hand: d * q).
std::vector<float> dequantize_acts(TensorType at, const uint8_t* row, int64_t cols) {
  std::vector<float> x(static_cast<size_t>(cols));
  if (at == TensorType::Q8_0) {
    REQUIRE(quant::dequantize_row(at, row, x.data(), cols));
    return x;
  }
  auto* b = reinterpret_cast<const quant::BlockQ8_K*>(row);
  for (int64_t i = 0; i < cols; ++i) x[i] = b[i / 256].d * b[i / 256].qs[i % 256];
  return x;
}

Reference reference(TensorType t, const std::vector<uint8_t>& w, const std::vector<uint8_t>& a, int64_t rows,
                    int64_t cols, int n_tokens) {
  TensorType at = quant::vec_dot_type(t);
  const size_t wrb = *row_bytes(t, cols), arb = *row_bytes(at, cols);
  auto dot = quant::vec_dot_fn(t);
  Reference r{std::vector<float>(rows * n_tokens), std::vector<float>(rows * n_tokens)};
  std::vector<float> wf(static_cast<size_t>(cols));
  for (int tok = 0; tok < n_tokens; ++tok) {
    const std::vector<float> xf = dequantize_acts(at, a.data() + tok * arb, cols);
    for (int64_t row = 0; row < rows; ++row) {
      const uint8_t* wr = w.data() + row * wrb;
      r.y[tok * rows + row] = dot(cols, wr, a.data() + tok * arb);
      REQUIRE(quant::dequantize_row(t, wr, wf.data(), cols));
      double m = 0;
      for (int64_t i = 0; i < cols; ++i) m += std::fabs(static_cast<double>(wf[i]) * xf[i]);
      r.magnitude[tok * rows + row] = static_cast<float>(m);
    }
  }
  return r;
}

// Exact inputs (small quants, power-of-two scales) must give the reference's bits; random
// ones must be within rel x sum |w x a| of it (4e-6: FP32 sums in another order; the BF16
// tiles state 2^-7).
void check_type(TensorType t, const SimdKernels& k, bool exact, float rel) {
  std::mt19937 rng(1234 + static_cast<int>(t) + (exact ? 1000 : 0));
  const int64_t elems = tensor_type_info(static_cast<uint32_t>(t))->block_elems;
  struct Shape {
    std::vector<int64_t> rows, cols;
    std::vector<int> tokens;
  };
  const Shape shapes[] = {
      // 45 and 80 rows: slices of 2 and 3 panels (the 16-lane kernels take panels in pairs).
      {{1, 7, 16, 17, 45, 80}, {elems, elems * 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 15, 16, 37}},  // 16, 37: one and two AMX tiles
      // A 4,864-wide row: a prefill of 75 tokens spans several token blocks (token_block.h).
      {{17, 50}, {4864}, {75}},
  };
  for (const Shape& shape : shapes)
  for (int64_t rows : shape.rows) {
    for (int64_t cols : shape.cols) {
      for (int n_tokens : shape.tokens) {
        INFO(tensor_type_name(t) << " on " << k.name << (exact ? " exact" : " random") << ": rows " << rows
                                 << " cols " << cols << " tokens " << n_tokens);
        auto w = random_weights(t, rows, cols, exact, rng);
        auto a = random_acts(t, n_tokens, cols, exact, rng);
        Reference ref = reference(t, w, a, rows, cols, n_tokens);

        AlignedBuf packed(packed_bytes(t, rows, cols));
        REQUIRE(repack(t, w.data(), rows, cols, packed.p));
        PackedMatrix pm{t, rows, cols, packed.p};
        AlignedBuf aux(quantized_acts_bytes(t, cols, n_tokens));
        QuantizedActs x = wrap_quantized_acts(quant::vec_dot_type(t), a.data(), n_tokens, cols, aux.p);

        // Computed in two panel slices, into a wider output (stride > rows) pre-filled
        // with a sentinel that must survive outside the rows.
        const int64_t stride = rows + 3;
        std::vector<float> y(static_cast<size_t>(stride * n_tokens), -7.f);
        const int64_t split = pm.panels() / 2;
        k.matmul(pm, x, y.data(), stride, 0, split);
        k.matmul(pm, x, y.data(), stride, split, pm.panels());
        // The twins with software prefetch (far, near, l2) compute the same bits.
        for (PackedMatmulFn twin : {k.matmul_prefetch, k.matmul_prefetch_near, k.matmul_prefetch_l2}) {
          std::vector<float> y_pf(y.size(), -7.f);
          twin(pm, x, y_pf.data(), stride, 0, split);
          twin(pm, x, y_pf.data(), stride, split, pm.panels());
          REQUIRE(std::memcmp(y_pf.data(), y.data(), y.size() * sizeof(float)) == 0);
        }
        // A speculative draft's verification batch gives each token the bits it gets alone
        // (greedy output with a draft is the model's own).
        if (n_tokens > 1 && n_tokens <= kRowsBatchMax) {
          const size_t rb = *row_bytes(quant::vec_dot_type(t), static_cast<uint64_t>(cols));
          for (int tok = 0; tok < n_tokens; ++tok) {
            AlignedBuf aux1(quantized_acts_bytes(t, cols, 1));
            QuantizedActs x1 = wrap_quantized_acts(quant::vec_dot_type(t), a.data() + tok * rb, 1, cols, aux1.p);
            std::vector<float> y1(static_cast<size_t>(rows), -7.f);
            k.matmul(pm, x1, y1.data(), rows, 0, pm.panels());
            INFO("token " << tok << " of the batch against alone");
            REQUIRE(std::memcmp(y1.data(), y.data() + tok * stride, static_cast<size_t>(rows) * sizeof(float)) == 0);
          }
        }
        for (int tok = 0; tok < n_tokens; ++tok) {
          for (int64_t row = 0; row < rows; ++row) {
            const float want = ref.y[tok * rows + row], got = y[tok * stride + row];
            if (exact)
              REQUIRE(got == want);
            else {
              INFO("got " << got << " want " << want << " magnitude " << ref.magnitude[tok * rows + row]);
              REQUIRE(std::fabs(got - want) <= rel * ref.magnitude[tok * rows + row] + 1e-30f);
            }
          }
          for (int64_t row = rows; row < stride; ++row) REQUIRE(y[tok * stride + row] == -7.f);
        }
      }
    }
  }
}

const KernelIsa kAllIsas[] = {KernelIsa::Avx2,     KernelIsa::Avx512, KernelIsa::Avx2Vnni,
                              KernelIsa::Avx2VnniEvex, KernelIsa::Amx, KernelIsa::AmxModel, KernelIsa::Avx512Model,
                              KernelIsa::AmxBf16, KernelIsa::AmxBf16Model,
                              KernelIsa::Neon,     KernelIsa::NeonDotprod};

const TensorType kTypes[] = {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q5_0,
                             TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K};

void check_isa(KernelIsa isa, float rel = 4e-6f) {
  const SimdKernels* k = simd_kernels(isa);
  if (!k) test::skip_test("this CPU (or this build's architecture) lacks the instruction set");
  for (TensorType t : kTypes) {
    check_type(t, *k, true, rel);
    check_type(t, *k, false, rel);
  }
}

}  // namespace

TEST_CASE("avx2 packed kernels match the scalar reference") { check_isa(KernelIsa::Avx2); }

TEST_CASE("avx512 packed kernels match the scalar reference") { check_isa(KernelIsa::Avx512); }

// AVX2 + AVX-VNNI: run where the CPU has AVX-VNNI; everywhere with AVX-512 VNNI the same
// code runs in its EVEX encoding (kernels_avxvnni_evex.cpp), so it is checked here too.
TEST_CASE("avx2-vnni packed kernels match the scalar reference") { check_isa(KernelIsa::Avx2Vnni); }

TEST_CASE("avx2-vnni packed kernels (EVEX twin) match the scalar reference") { check_isa(KernelIsa::Avx2VnniEvex); }

// The AVX-512 VNNI kernels' code on the software model of the vectors
// (kernels/emulated/vec16_model.h): on every x86 CPU, with AVX-512 or not.
TEST_CASE("avx512 packed kernels (software model of the vectors) match the scalar reference") {
  check_isa(KernelIsa::Avx512Model);
}

// AMX tiles for prefill: on the hardware where the CPU has AMX, and on every x86 CPU on the
// software models of the tiles and vectors (kernels/amx/tile_model.h, kernels/emulated).
TEST_CASE("amx packed kernels match the scalar reference") { check_isa(KernelIsa::Amx); }

TEST_CASE("amx packed kernels (software model of the tiles) match the scalar reference") {
  check_isa(KernelIsa::AmxModel);
}

// The BF16 tiles (amx_bf16_kernels.h), within their bound: on the hardware where the CPU
// has AMX-BF16, and on every x86 CPU on the models of the tiles (TDPBF16PS as the SDM's
// pseudo-code writes it) and of the vectors.
TEST_CASE("amx-bf16 packed kernels are within their bound of the scalar reference") {
  check_isa(KernelIsa::AmxBf16, 1.0f / 128);
}

TEST_CASE("amx-bf16 packed kernels (software model of the tiles) are within their bound of the scalar reference") {
  check_isa(KernelIsa::AmxBf16Model, 1.0f / 128);
}

// AArch64: plain NEON everywhere (under qemu also with `-cpu cortex-a57`, which lacks the
// dot product), and SDOT where the CPU has it.
TEST_CASE("neon packed kernels match the scalar reference") { check_isa(KernelIsa::Neon); }

TEST_CASE("neon-dotprod packed kernels match the scalar reference") { check_isa(KernelIsa::NeonDotprod); }

TEST_CASE("the kernels chosen follow the CPU's features and the build's architecture") {
  const CpuFeatures& cpu = cpu_features();
  const SimdKernels* best = best_simd_kernels(false);
#if defined(__aarch64__)
  REQUIRE(best != nullptr);
  CHECK(std::string(best->name) == (cpu.dotprod ? "neon-dotprod" : "neon"));
  CHECK((simd_kernels(KernelIsa::NeonDotprod) != nullptr) == cpu.dotprod);
  CHECK(simd_kernels(KernelIsa::Avx2) == nullptr);
#else
  CHECK((best != nullptr) == cpu.has_avx2_kernels());
  CHECK(simd_kernels(KernelIsa::Neon) == nullptr);
  CHECK(simd_kernels(KernelIsa::NeonDotprod) == nullptr);
  // The models run everywhere and are never chosen.
  REQUIRE(simd_kernels(KernelIsa::Avx512Model) != nullptr);
  REQUIRE(simd_kernels(KernelIsa::AmxModel) != nullptr);
  CHECK(best != simd_kernels(KernelIsa::Avx512Model));
  CHECK(best_simd_kernels(true) != simd_kernels(KernelIsa::AmxModel));
  REQUIRE(simd_kernels(KernelIsa::AmxBf16Model) != nullptr);
  CHECK(best_simd_kernels(true, true) != simd_kernels(KernelIsa::AmxBf16Model));
  // The BF16 tiles only when asked for.
  if (simd_kernels(KernelIsa::AmxBf16)) CHECK(best_simd_kernels(true) != simd_kernels(KernelIsa::AmxBf16));
#endif
}

TEST_CASE("quantize_acts matches quantize_activations and fills the Q8_0 side values") {
  std::mt19937 rng(7);
  std::normal_distribution<float> n01(0.f, 1.f);
  const int64_t cols = 512;
  const int n_tokens = 3;
  std::vector<float> x(static_cast<size_t>(cols * n_tokens));
  for (auto& v : x) v = n01(rng);
  for (TensorType t : {TensorType::Q4_0, TensorType::Q6_K}) {
    TensorType at = quant::vec_dot_type(t);
    AlignedBuf buf(quantized_acts_bytes(t, cols, n_tokens));
    QuantizedActs a = quantize_acts(t, x.data(), cols, n_tokens, cols, buf.p);
    REQUIRE(a.type == at);
    std::vector<uint8_t> want(*row_bytes(at, cols));
    for (int tok = 0; tok < n_tokens; ++tok) {
      REQUIRE(quant::quantize_activations(at, x.data() + tok * cols, want.data(), cols));
      REQUIRE(std::memcmp(a.rows + tok * a.row_bytes, want.data(), want.size()) == 0);
      if (at != TensorType::Q8_0) continue;
      auto* blocks = reinterpret_cast<const quant::BlockQ8_0*>(want.data());
      for (int64_t b = 0; b < cols / 32; ++b) {
        int s = 0;
        for (int j = 0; j < 32; ++j) s += blocks[b].qs[j];
        REQUIRE(a.sums[tok * (cols / 32) + b] == s);
        REQUIRE(a.d[tok * (cols / 32) + b] == f16_to_f32(blocks[b].d));
      }
    }
  }
}

TEST_CASE("repack rejects what it cannot pack") {
  uint8_t dummy[64] = {};
  REQUIRE_FALSE(repack(TensorType::F32, dummy, 1, 32, dummy));
  REQUIRE_FALSE(repack(TensorType::Q4_K, dummy, 1, 32, dummy));
  REQUIRE(packed_bytes(TensorType::Q4_K, 1, 32) == 0);
  REQUIRE(packed_bytes(TensorType::Q8_0, 17, 64) == 2 * 2 * 544);
  REQUIRE(quantized_acts_bytes(TensorType::F16, 64, 1) == 0);
}

namespace {

// The scalar definition of attention for one head, in double.
std::vector<double> attend_reference(const std::vector<float>& q, const std::vector<float>& k,
                                     const std::vector<float>& v, int n_pos, int dk, int dv, float scale) {
  std::vector<double> s(static_cast<size_t>(n_pos));
  double mx = -1e300, sum = 0;
  for (int p = 0; p < n_pos; ++p) {
    double d = 0;
    for (int i = 0; i < dk; ++i) d += static_cast<double>(q[i]) * k[p * dk + i];
    s[p] = d * scale;
    mx = std::max(mx, s[p]);
  }
  for (auto& x : s) sum += (x = std::exp(x - mx));
  std::vector<double> out(static_cast<size_t>(dv), 0.0);
  for (int p = 0; p < n_pos; ++p)
    for (int i = 0; i < dv; ++i) out[i] += s[p] / sum * v[p * dv + i];
  return out;
}

// Row-major keys (n_pos rows of dk) in KvCache's transposed blocks of 16 positions; the
// padding of the last block is NaN, which the kernels must read and ignore.
std::vector<float> block_keys(const std::vector<float>& k, int n_pos, int dk) {
  const int blocks = (n_pos + 15) / 16;
  std::vector<float> out(static_cast<size_t>(blocks) * 16 * dk, std::nanf(""));
  for (int p = 0; p < n_pos; ++p)
    for (int i = 0; i < dk; ++i) out[static_cast<size_t>(p / 16 * dk + i) * 16 + p % 16] = k[static_cast<size_t>(p) * dk + i];
  return out;
}

// Queries (3 x N(0,1)) and keys and values that are halves (N(0,1) rounded to F16), as floats
// and as halves, the keys in KvCache's blocks (the NaN padding stays NaN as a half).
struct HalfAttention {
  std::vector<float> q, v, kb;
  std::vector<uint16_t> v16, kb16;
};
HalfAttention half_attention(std::mt19937& rng, int n_q, int n_pos, int dk) {
  std::normal_distribution<float> n01(0.f, 1.f);
  HalfAttention d;
  d.q.resize(static_cast<size_t>(n_q * dk));
  std::vector<float> kk(static_cast<size_t>(n_pos * dk));
  d.v.resize(static_cast<size_t>(n_pos * dk));
  d.v16.resize(d.v.size());
  for (auto& x : d.q) x = 3 * n01(rng);
  for (auto& x : kk) x = f16_to_f32(f32_to_f16(n01(rng)));
  for (size_t i = 0; i < d.v.size(); ++i) d.v[i] = f16_to_f32(d.v16[i] = f32_to_f16(n01(rng)));
  d.kb = block_keys(kk, n_pos, dk);
  d.kb16.resize(d.kb.size());
  for (size_t i = 0; i < d.kb.size(); ++i) d.kb16[i] = f32_to_f16(d.kb[i]);
  return d;
}

}  // namespace

TEST_CASE("attention and swiglu kernels match their definitions") {
  for (KernelIsa isa : kAllIsas) {
    const SimdKernels* k = simd_kernels(isa);
    if (!k) continue;
    std::mt19937 rng(3);
    std::normal_distribution<float> n01(0.f, 1.f);
    for (int dk : {16, 64, 128}) {
      for (int n_pos : {1, 2, 15, 16, 17, 100}) {
        INFO(k->name << " dk " << dk << " n_pos " << n_pos);
        const int dv = dk == 16 ? 16 : 2 * dk - 64;  // dv != dk too
        std::vector<float> q(dk), kk(static_cast<size_t>(n_pos * dk)), v(static_cast<size_t>(n_pos * dv));
        for (auto& x : q) x = 3 * n01(rng);
        for (auto& x : kk) x = n01(rng);
        for (auto& x : v) x = n01(rng);
        std::vector<float> scratch(attend_scratch_floats(1, n_pos, dv)), out(static_cast<size_t>(dv));
        const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
        const std::vector<float> kb = block_keys(kk, n_pos, dk);
        k->attend(q.data(), dk, 1, kb.data(), v.data(), n_pos, dk, dv, scale, scratch.data(), out.data(), dv, nullptr);
        auto want = attend_reference(q, kk, v, n_pos, dk, dv, scale);
        for (int i = 0; i < dv; ++i) REQUIRE(std::fabs(out[i] - want[i]) <= 2e-5 * (1 + std::fabs(want[i])));
      }
    }
    for (int64_t n : {1, 15, 16, 33, 4864}) {
      std::vector<float> g(static_cast<size_t>(n)), u(static_cast<size_t>(n));
      for (auto& x : g) x = 6 * n01(rng);
      for (auto& x : u) x = n01(rng);
      g[0] = -100.f;  // e^100 is clamped, silu stays ~0
      if (n > 1) g[1] = 100.f;
      std::vector<float> want(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) want[i] = static_cast<float>(g[i] / (1.0 + std::exp(-static_cast<double>(g[i]))) * u[i]);
      k->swiglu(g.data(), u.data(), n);
      for (int64_t i = 0; i < n; ++i) REQUIRE(std::fabs(g[i] - want[i]) <= 1e-6f * (1 + std::fabs(want[i])));
    }
  }
}

TEST_CASE("the residual add with RMS norm and NeoX RoPE match the scalar operations") {
  for (KernelIsa isa : kAllIsas) {
    const SimdKernels* k = simd_kernels(isa);
    if (!k) continue;
    REQUIRE(k->add_rms_norm != nullptr);
    REQUIRE(k->rope_neox != nullptr);
    std::mt19937 rng(5);
    std::normal_distribution<float> n01(0.f, 1.f);
    for (int64_t n : {1, 7, 16, 33, 64, 896, 4864}) {
      INFO(k->name << " n " << n);
      std::vector<float> x(static_cast<size_t>(n)), add(x.size()), w(x.size());
      for (auto& v : x) v = 4 * n01(rng);
      for (auto& v : add) v = n01(rng);
      for (auto& v : w) v = 1 + 0.1f * n01(rng);
      // The definition: the add, then ops::rms_norm.
      std::vector<float> want_x(x.size()), want_y(x.size());
      for (size_t i = 0; i < x.size(); ++i) want_x[i] = x[i] + add[i];
      ops::rms_norm(want_x.data(), w.data(), want_y.data(), n, 1e-6f);
      std::vector<float> got_x = x, got_y(x.size(), -1.f);
      k->add_rms_norm(got_x.data(), add.data(), w.data(), got_y.data(), n, 1e-6f);
      for (size_t i = 0; i < x.size(); ++i) {
        REQUIRE(got_x[i] == want_x[i]);  // the add is exact in both
        REQUIRE(std::fabs(got_y[i] - want_y[i]) <= 2e-6f * (1 + std::fabs(want_y[i])));
      }
      // Without the add, and the add alone (y nullptr leaves the norm out).
      std::vector<float> y0(x.size()), y1(x.size());
      ops::rms_norm(x.data(), w.data(), y0.data(), n, 1e-6f);
      std::vector<float> x1 = x;
      k->add_rms_norm(x1.data(), nullptr, w.data(), y1.data(), n, 1e-6f);
      REQUIRE(x1 == x);
      for (size_t i = 0; i < x.size(); ++i) REQUIRE(std::fabs(y1[i] - y0[i]) <= 2e-6f * (1 + std::fabs(y0[i])));
      k->add_rms_norm(x1.data(), add.data(), nullptr, nullptr, n, 1e-6f);
      REQUIRE(x1 == want_x);
    }
    for (int n_rot : {2, 16, 32, 64, 128}) {
      for (int pos : {0, 1, 17, 1500}) {
        INFO(k->name << " n_rot " << n_rot << " pos " << pos);
        const int head_dim = n_rot == 2 ? 16 : 128;  // RoPE on the first n_rot dimensions only
        const int heads = 3;
        std::vector<float> cs(static_cast<size_t>(n_rot));
        ops::rope_angles(pos, n_rot, 1e6f, 1.0f, cs.data(), cs.data() + n_rot / 2);
        std::vector<float> x(static_cast<size_t>(heads * head_dim));
        for (auto& v : x) v = n01(rng);
        std::vector<float> want = x, got = x;
        for (int h = 0; h < heads; ++h)
          ops::rope_rotate(want.data() + h * head_dim, n_rot, true, cs.data(), cs.data() + n_rot / 2);
        k->rope_neox(got.data(), heads, head_dim, n_rot, cs.data(), cs.data() + n_rot / 2);
        for (size_t i = 0; i < x.size(); ++i) REQUIRE(std::fabs(got[i] - want[i]) <= 1e-6f * (1 + std::fabs(want[i])));
      }
    }
  }
}

TEST_CASE("softmax weights far below the maximum are exactly zero, never denormal") {
  // One key lines up with the query and the others score 20-120 below it: e^(score - max)
  // of those would be denormal (below FLT_MIN) or become one when normalised. The weights
  // the kernel leaves in its scratch must be 0 or normal, and the result the definition's.
  // The thread runs without flush-to-zero here (a pool run in an earlier test set it), so
  // a denormal would show.
  keep_denormals_in_this_thread();
  const int dk = 64, dv = 64, n_pos = 200;
  std::vector<float> q(dk, 0.0f), kk(static_cast<size_t>(n_pos) * dk, 0.0f), v(static_cast<size_t>(n_pos) * dv);
  q[0] = 8.0f;
  for (int p = 0; p < n_pos; ++p) kk[static_cast<size_t>(p) * dk] = p == 37 ? 8.0f : 8.0f - 0.5f * static_cast<float>(p % 240 + 40) / 8;
  std::mt19937 rng(5);
  std::normal_distribution<float> n01(0.f, 1.f);
  for (auto& x : v) x = n01(rng);
  const float scale = 1.0f;
  auto want = attend_reference(q, kk, v, n_pos, dk, dv, scale);
  auto check_weights = [&](const float* w, const char* who) {
    int kept = 0, dropped = 0;
    for (int p = 0; p < n_pos; ++p) {
      INFO(who << " weight " << p << " = " << w[p]);
      REQUIRE(std::fpclassify(w[p]) != FP_SUBNORMAL);
      (w[p] == 0.0f ? dropped : kept) += 1;
    }
    REQUIRE(kept >= 2);      // the peak and the scores within the floor of it
    REQUIRE(dropped >= 100); // the far ones
  };
  {
    std::vector<float> s(static_cast<size_t>(n_pos));
    for (int p = 0; p < n_pos; ++p) s[p] = q[0] * kk[static_cast<size_t>(p) * dk];
    ops::softmax_scaled(s.data(), n_pos, scale);
    check_weights(s.data(), "scalar");
  }
  for (KernelIsa isa : kAllIsas) {
    const SimdKernels* k = simd_kernels(isa);
    if (!k) continue;
    std::vector<float> scratch(attend_scratch_floats(1, n_pos, dv)), out(static_cast<size_t>(dv));
    const std::vector<float> kb = block_keys(kk, n_pos, dk);
    k->attend(q.data(), dk, 1, kb.data(), v.data(), n_pos, dk, dv, scale, scratch.data(), out.data(), dv, nullptr);
    check_weights(scratch.data(), k->name);
    for (int i = 0; i < dv; ++i) REQUIRE(std::fabs(out[i] - want[i]) <= 2e-5 * (1 + std::fabs(want[i])));
  }
  flush_denormals_in_this_thread();
}

TEST_CASE("grouped attention gives every query head what it gets alone") {
  // Query heads sharing a key/value head are computed together (the keys and values are
  // read once); each head's output must be bit for bit the single-head result, whatever
  // the group size, strides and context length (chunks of value rows, partial blocks).
  for (KernelIsa isa : kAllIsas) {
    const SimdKernels* k = simd_kernels(isa);
    if (!k) continue;
    std::mt19937 rng(5);
    std::normal_distribution<float> n01(0.f, 1.f);
    for (int dk : {64, 128}) {
      for (int n_q : {2, 6, 7}) {
        for (int n_pos : {1, 15, 33, 200, 1500}) {
          INFO(k->name << " dk " << dk << " n_q " << n_q << " n_pos " << n_pos);
          const int dv = dk, q_stride = dk + 16, out_stride = dv + 32;
          std::vector<float> q(static_cast<size_t>(n_q * q_stride)), kk(static_cast<size_t>(n_pos * dk)),
              v(static_cast<size_t>(n_pos * dv));
          for (auto& x : q) x = 3 * n01(rng);
          for (auto& x : kk) x = n01(rng);
          for (auto& x : v) x = n01(rng);
          const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
          std::vector<float> scratch(attend_scratch_floats(n_q, n_pos, dv));
          std::vector<float> out(static_cast<size_t>(n_q * out_stride), -7.f);
          const std::vector<float> kb = block_keys(kk, n_pos, dk);
          k->attend(q.data(), q_stride, n_q, kb.data(), v.data(), n_pos, dk, dv, scale, scratch.data(), out.data(),
                    out_stride, nullptr);
          for (int h = 0; h < n_q; ++h) {
            std::vector<float> one(static_cast<size_t>(dv)), s1(attend_scratch_floats(1, n_pos, dv));
            k->attend(q.data() + h * q_stride, q_stride, 1, kb.data(), v.data(), n_pos, dk, dv, scale, s1.data(),
                      one.data(), dv, nullptr);
            for (int i = 0; i < dv; ++i) REQUIRE(out[h * out_stride + i] == one[i]);
            for (int i = dv; i < out_stride; ++i) REQUIRE(out[h * out_stride + i] == -7.f);  // gaps untouched
            if (h == n_q - 1) {
              std::vector<float> qh(q.begin() + h * q_stride, q.begin() + h * q_stride + dk);
              auto want = attend_reference(qh, kk, v, n_pos, dk, dv, scale);
              for (int i = 0; i < dv; ++i) REQUIRE(std::fabs(one[i] - want[i]) <= 2e-5 * (1 + std::fabs(want[i])));
            }
          }
        }
      }
    }
  }
}

TEST_CASE("a prefill's tokens attended together each get their own causal result") {
  // Forward::attention_blocks scores the query heads of several prefill tokens together,
  // each with its own limit (n_pos_each: token t sees positions 0..pos0+t). Each must get
  // bit for bit what it gets alone over its own positions, F32 and F16 caches, whatever the
  // block (here the queries of 1-16 tokens of a 7-head group, and odd limits).
  for (KernelIsa isa : kAllIsas) {
    const SimdKernels* k = simd_kernels(isa);
    if (!k) continue;
    std::mt19937 rng(7);
    for (int dk : {64, 128}) {
      for (int tokens : {1, 3, 16}) {
        for (int pos0 : {0, 14, 300}) {
          INFO(k->name << " dk " << dk << " tokens " << tokens << " pos0 " << pos0);
          const int group = 7, n_q = tokens * group, dv = dk, n_pos = pos0 + tokens;
          const HalfAttention d = half_attention(rng, n_q, n_pos, dk);
          const std::vector<float> &q = d.q, &v = d.v, &kb = d.kb;
          const std::vector<uint16_t> &v16 = d.v16, &kb16 = d.kb16;
          std::vector<int> limits(static_cast<size_t>(n_q));
          for (int j = 0; j < n_q; ++j) limits[j] = pos0 + j / group + 1;
          const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
          std::vector<float> scratch(attend_scratch_floats(n_q, n_pos, dv));
          std::vector<float> out(static_cast<size_t>(n_q * dv)), out16(out.size());
          k->attend(q.data(), dk, n_q, kb.data(), v.data(), n_pos, dk, dv, scale, scratch.data(), out.data(), dv,
                    limits.data());
          k->attend_f16(q.data(), dk, n_q, kb16.data(), v16.data(), n_pos, dk, dv, scale, scratch.data(),
                        out16.data(), dv, limits.data());
          for (int t = 0; t < tokens; ++t) {
            const int own = pos0 + t + 1;
            std::vector<float> alone(static_cast<size_t>(group * dv)), s1(attend_scratch_floats(group, own, dv));
            k->attend(q.data() + t * group * dk, dk, group, kb.data(), v.data(), own, dk, dv, scale, s1.data(),
                      alone.data(), dv, nullptr);
            for (int i = 0; i < group * dv; ++i) {
              REQUIRE(out[t * group * dv + i] == alone[i]);
              REQUIRE(out16[t * group * dv + i] == alone[i]);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("attention over an F16 cache is the F32 kernel over the widened halves, bit for bit") {
  // The F16 kernels only widen what they load (vcvtph2ps is exact), so over keys and values
  // that are halves they must give exactly what the float kernels give over the same values.
  for (KernelIsa isa : kAllIsas) {
    const SimdKernels* k = simd_kernels(isa);
    if (!k) continue;
    std::mt19937 rng(11);
    for (int dk : {16, 64, 128}) {
      for (int n_q : {1, 6, 7}) {
        for (int n_pos : {1, 17, 300}) {
          INFO(k->name << " dk " << dk << " n_q " << n_q << " n_pos " << n_pos);
          const int dv = dk;
          const HalfAttention d = half_attention(rng, n_q, n_pos, dk);
          const std::vector<float> &q = d.q, &v = d.v, &kb = d.kb;
          const std::vector<uint16_t> &v16 = d.v16, &kb16 = d.kb16;
          const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
          std::vector<float> scratch(attend_scratch_floats(n_q, n_pos, dv));
          std::vector<float> want(static_cast<size_t>(n_q * dv)), got(want.size(), -7.f);
          k->attend(q.data(), dk, n_q, kb.data(), v.data(), n_pos, dk, dv, scale, scratch.data(), want.data(), dv,
                    nullptr);
          k->attend_f16(q.data(), dk, n_q, kb16.data(), v16.data(), n_pos, dk, dv, scale, scratch.data(), got.data(),
                        dv, nullptr);
          REQUIRE(got == want);
        }
      }
    }
  }
}

TEST_CASE("attention over Q8_0 keys is the definition over the dequantized keys and queries") {
  // The keys come from a real KvCache (set_key quantizes them), with the padding lanes of the
  // last block holding keys far larger than the rest, which must be read and ignored. Every
  // head must get what it gets alone, and what the double-precision definition gives over
  // the keys and queries the quants stand for (d * q) and the half values.
  for (KernelIsa isa : kAllIsas) {
    const SimdKernels* k = simd_kernels(isa);
    if (!k) continue;
    std::mt19937 rng(13);
    std::normal_distribution<float> n01(0.f, 1.f);
    for (int dk : {32, 64, 128}) {
      for (int n_q : {1, 2, 7, 8}) {
        for (int n_pos : {1, 15, 17, 100, 1500}) {
          INFO(k->name << " dk " << dk << " n_q " << n_q << " n_pos " << n_pos);
          const int dv = dk == 32 ? 64 : dk;
          ModelConfig c;
          c.arch = find_architecture("llama");
          c.n_layer = 1;
          c.n_head = n_q;
          c.n_head_kv = 1;
          c.head_dim_k = dk;
          c.head_dim_v = dv;
          const int padded = (n_pos + 15) / 16 * 16;
          auto kv = KvCache::create(c, padded, KvType::Q8_0);
          REQUIRE(kv.ok());
          std::vector<float> row(static_cast<size_t>(std::max(dk, dv)));
          for (int p = 0; p < padded; ++p) {
            for (auto& x : row) x = (p < n_pos ? 1.0f : 1e4f) * n01(rng);
            kv->set_key(0, 0, p, row.data());
            for (auto& x : row) x = n01(rng);
            kv->set_value(0, 0, p, row.data());
          }
          std::vector<float> q(static_cast<size_t>(n_q * dk));
          for (auto& x : q) x = 3 * n01(rng);
          std::vector<quant::BlockQ8_0> qb(static_cast<size_t>(n_q * dk / 32));
          quant::quantize_row_q8_0(q.data(), qb.data(), n_q * dk);
          const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
          const int out_stride = dv + 16;
          std::vector<float> scratch(attend_scratch_floats(n_q, n_pos, dv));
          std::vector<float> out(static_cast<size_t>(n_q * out_stride), -7.f);
          const auto* qbytes = reinterpret_cast<const uint8_t*>(qb.data());
          k->attend_q8(qbytes, n_q, kv->keys_q8(0, 0), kv->values_f16(0, 0), n_pos, dk, dv, scale, scratch.data(),
                       out.data(), out_stride);
          std::vector<float> kk(static_cast<size_t>(n_pos * dk)), v(static_cast<size_t>(n_pos * dv));
          for (int p = 0; p < n_pos; ++p) {
            for (int i = 0; i < dk; ++i) kk[static_cast<size_t>(p * dk + i)] = kv->key(0, 0, p, i);
            for (int i = 0; i < dv; ++i) v[static_cast<size_t>(p * dv + i)] = kv->value(0, 0, p, i);
          }
          for (int h = 0; h < n_q; ++h) {
            std::vector<float> one(static_cast<size_t>(dv)), s1(attend_scratch_floats(1, n_pos, dv));
            k->attend_q8(qbytes + static_cast<size_t>(h) * dk / 32 * 34, 1, kv->keys_q8(0, 0), kv->values_f16(0, 0),
                         n_pos, dk, dv, scale, s1.data(), one.data(), dv);
            for (int i = 0; i < dv; ++i) REQUIRE(out[h * out_stride + i] == one[i]);
            for (int i = dv; i < out_stride; ++i) REQUIRE(out[h * out_stride + i] == -7.f);  // gaps untouched
            std::vector<float> qh(static_cast<size_t>(dk));
            for (int i = 0; i < dk; ++i) {
              const quant::BlockQ8_0& b = qb[static_cast<size_t>(h * dk / 32 + i / 32)];
              qh[i] = f16_to_f32(b.d) * static_cast<float>(b.qs[i % 32]);
            }
            auto want = attend_reference(qh, kk, v, n_pos, dk, dv, scale);
            for (int i = 0; i < dv; ++i) REQUIRE(std::fabs(one[i] - want[i]) <= 2e-5 * (1 + std::fabs(want[i])));
          }
        }
      }
    }
  }
}
