// Backend::matmul_many (the Q, K and V projections, or gate and up, in one parallel step):
// every output is bit for bit what matmul() gives for that matrix alone, for every backend,
// batch size and mix of weight types (mixed types fall back to one step per matrix).
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/kernels/kernels.h"
#include "engine/quant/quant_basic.h"
#include "engine/quant/quant_kquants.h"

using namespace wafer;
using wafer::kernels::ActivationSet;
using wafer::kernels::Backend;
using wafer::kernels::MatmulJob;
using wafer::kernels::MatrixView;

namespace {

// Whether the backend's tuning report names a kind after `what` ("q8_0 decode prefetch "),
// not "undecided".
bool decided(const std::string& report, const std::string& what) {
  const size_t at = report.find(what);
  if (at == std::string::npos) return false;
  const size_t from = at + what.size();
  const std::string choice = report.substr(from, report.find(' ', from) - from);
  return choice == "off" || choice == "far" || choice == "near" || choice == "l2";
}

struct Weights {
  std::vector<uint8_t> bytes;
  kernels::PackedMatrix packed;
};

// rows x cols random weights quantized to `type` (Q8_0, Q4_0 or Q4_K), or kept F32, packed by b.
Weights make_weights(const Backend& b, TensorType type, int64_t rows, int64_t cols, std::mt19937& rng) {
  std::normal_distribution<float> n01(0.f, 1.f);
  std::vector<float> x(static_cast<size_t>(rows * cols));
  for (auto& v : x) v = 0.1f * n01(rng);
  Weights w;
  const size_t rb = *row_bytes(type, static_cast<uint64_t>(cols));
  w.bytes.resize(rb * static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * cols;
    uint8_t* out = w.bytes.data() + r * rb;
    if (type == TensorType::Q8_0)
      quantize_row_q8_0(row, out, static_cast<size_t>(cols));
    else if (type == TensorType::Q4_K)
      quantize_row_q4_k_simple(row, out, static_cast<size_t>(cols));
    else if (type == TensorType::Q4_0)
      quantize_row_q4_0(row, out, static_cast<size_t>(cols));
    else
      std::memcpy(out, row, rb);
  }
  auto p = b.pack(MatrixView{type, rows, cols, rb, w.bytes.data()});
  REQUIRE(p.ok());
  w.packed = std::move(*p);
  return w;
}

// Runs `tokens` rows of x through w once, then for as many steps as the warm-up and the
// prefetch trial take (9,216 steps) and a few more; returns how many of those steps gave
// other outputs than the first.
int changed_past_trial(const Backend& b, const Weights& w, const std::vector<float>& x, int tokens, int64_t rows,
                       int64_t cols, ThreadPool& pool) {
  std::vector<float> first(static_cast<size_t>(rows * tokens)), y(first.size());
  ActivationSet set;
  set.reset(x.data(), tokens, cols);
  b.matmul(w.packed, set, first.data(), rows, pool);
  int changed = 0;
  for (int step = 0; step < 9300; ++step) {
    ActivationSet s1;
    s1.reset(x.data(), tokens, cols);
    b.matmul(w.packed, s1, y.data(), rows, pool);
    changed += y != first;
  }
  return changed;
}

}  // namespace

TEST_CASE("matmul_many gives each matrix what matmul gives it alone", "[kernels]") {
  std::vector<const Backend*> backends = {&kernels::scalar_backend()};
  for (KernelIsa isa : {KernelIsa::Avx2, KernelIsa::Avx512, KernelIsa::Avx2Vnni, KernelIsa::Avx2VnniEvex,
                        KernelIsa::Amx, KernelIsa::AmxModel, KernelIsa::Avx512Model, KernelIsa::AmxBf16,
                        KernelIsa::AmxBf16Model, KernelIsa::Neon, KernelIsa::NeonDotprod})
    if (const Backend* b = kernels::simd_backend(isa)) backends.push_back(b);
  const int64_t cols = 256;
  const std::vector<std::vector<TensorType>> mixes = {
      {TensorType::Q8_0, TensorType::Q8_0, TensorType::Q8_0},  // Q, K, V of one type: one step
      {TensorType::Q4_0, TensorType::Q4_0},                    // gate and up
      {TensorType::Q8_0, TensorType::Q4_0, TensorType::F32},   // mixed: one matrix at a time
  };
  const std::vector<int64_t> rows = {96, 32, 40};  // 40: a partial 16-row panel
  for (const Backend* b : backends) {
    for (int threads : {1, 2, 3}) {
      ThreadPool pool(threads);
      for (const auto& mix : mixes) {
        for (int n : {1, 5, 19}) {  // 19: a tile of 16 tokens (AMX) and 3 more
          INFO(b->name() << " threads " << threads << " matrices " << mix.size() << " tokens " << n);
          std::mt19937 rng(static_cast<unsigned>(n * 10 + mix.size()));
          std::vector<Weights> ws;
          for (size_t i = 0; i < mix.size(); ++i) ws.push_back(make_weights(*b, mix[i], rows[i], cols, rng));
          std::normal_distribution<float> n01(0.f, 1.f);
          std::vector<float> x(static_cast<size_t>(n * cols));
          for (auto& v : x) v = n01(rng);
          std::vector<std::vector<float>> together(mix.size()), alone(mix.size());
          std::vector<MatmulJob> jobs;
          for (size_t i = 0; i < mix.size(); ++i) {
            together[i].assign(static_cast<size_t>(n * rows[i]), -1.f);
            alone[i].assign(static_cast<size_t>(n * rows[i]), -2.f);
            jobs.push_back({&ws[i].packed, together[i].data(), rows[i]});
          }
          ActivationSet set;
          set.reset(x.data(), n, cols);
          b->matmul_many(jobs, set, pool);
          for (size_t i = 0; i < mix.size(); ++i) {
            ActivationSet fresh;
            fresh.reset(x.data(), n, cols);
            b->matmul(ws[i].packed, fresh, alone[i].data(), rows[i], pool);
            CHECK(together[i] == alone[i]);
          }
        }
      }
    }
  }
}

// The SIMD backend times its first decode-sized steps (here K-quant ones) without software
// prefetch, with far and with near prefetch (in turn), then keeps the fastest kernel: the
// outputs never change, and afterwards it reports which one it kept and the three speeds.
TEST_CASE("SIMD backend picks K-quant prefetch by timing, results unchanged", "[kernels]") {
  for (KernelIsa isa : {KernelIsa::Avx2, KernelIsa::Avx512, KernelIsa::Avx2Vnni, KernelIsa::Avx2VnniEvex,
                        KernelIsa::Neon, KernelIsa::NeonDotprod}) {
    const Backend* b = kernels::simd_backend(isa);
    if (!b) continue;
    INFO(b->name());
    ThreadPool pool(2);
    std::mt19937 rng(7);
    const int64_t rows = 48, cols = 512;
    Weights w = make_weights(*b, TensorType::Q4_K, rows, cols, rng);
    std::normal_distribution<float> n01(0.f, 1.f);
    std::vector<float> x(static_cast<size_t>(cols));
    for (auto& v : x) v = n01(rng);
    CHECK(changed_past_trial(*b, w, x, 1, rows, cols, pool) == 0);
    const std::string report = b->tuning();
    INFO(report);
    CHECK(report.find("q4_K decode prefetch ") != std::string::npos);
    CHECK((report.find("prefetch off") != std::string::npos || report.find("prefetch far") != std::string::npos ||
           report.find("prefetch near") != std::string::npos || report.find("prefetch l2") != std::string::npos));
    // The four kernels were timed: speeds above zero (however slow the CPU, or qemu, is).
    double without = 0, far = 0, near = 0, l2 = 0;
    const size_t at = report.find("timed: ");
    REQUIRE(at != std::string::npos);
    REQUIRE(std::sscanf(report.c_str() + at, "timed: %lf GB/s without, %lf far, %lf near, %lf l2", &without, &far,
                        &near, &l2) == 4);
    CHECK(without > 0);
    CHECK(far > 0);
    CHECK(near > 0);
    CHECK(l2 > 0);
  }
}

// The kind a token streams fastest with is not always the one a verification batch does:
// batches get a trial and a choice of their own, and their results stay the same bits.
TEST_CASE("SIMD backend chooses the prefetch of a few-token batch apart from one token's", "[kernels]") {
  for (KernelIsa isa : {KernelIsa::Avx2, KernelIsa::Avx512, KernelIsa::Neon}) {
    const Backend* b = kernels::simd_backend(isa);
    if (!b) continue;
    INFO(b->name());
    ThreadPool pool(2);
    std::mt19937 rng(12);
    const int64_t rows = 48, cols = 256;
    const int tokens = 4;
    std::normal_distribution<float> n01(0.f, 1.f);
    std::vector<float> x(static_cast<size_t>(cols * tokens));
    for (auto& v : x) v = n01(rng);
    Weights w = make_weights(*b, TensorType::Q8_0, rows, cols, rng);
    CHECK(changed_past_trial(*b, w, x, tokens, rows, cols, pool) == 0);
    const std::string report = b->tuning();
    INFO(report);
    CHECK(decided(report, "q8_0 batch prefetch "));
    CHECK(report.find("q8_0 decode prefetch") == std::string::npos);  // one token never ran
  }
}

// Each weight type with a prefetch twin gets its own trial and choice (the gain differs
// by type), and the report names each type tried.
TEST_CASE("SIMD backend chooses the decode prefetch per weight type", "[kernels]") {
  for (KernelIsa isa : {KernelIsa::Avx2, KernelIsa::Avx512, KernelIsa::Neon}) {
    const Backend* b = kernels::simd_backend(isa);
    if (!b) continue;
    INFO(b->name());
    ThreadPool pool(2);
    std::mt19937 rng(11);
    const int64_t rows = 48, cols = 512;
    std::normal_distribution<float> n01(0.f, 1.f);
    std::vector<float> x(static_cast<size_t>(cols)), y(static_cast<size_t>(rows));
    for (auto& v : x) v = n01(rng);
    for (TensorType t : {TensorType::Q8_0, TensorType::Q4_0}) {
      Weights w = make_weights(*b, t, rows, cols, rng);
      for (int step = 0; step < 9300; ++step) {  // past this type's warm-up and trial
        ActivationSet s1;
        s1.reset(x.data(), 1, cols);
        b->matmul(w.packed, s1, y.data(), rows, pool);
      }
    }
    const std::string report = b->tuning();
    INFO(report);
    for (const char* type : {"q8_0 decode prefetch ", "q4_0 decode prefetch "}) CHECK(decided(report, type));
  }
}
