// Backend::pack with a thread pool (each thread repacks the panels it owns in matmul) writes
// exactly the bytes of the one-thread repack, for every backend this CPU runs, every
// packable weight type, partial last panels and more threads than panels.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "engine/kernels/kernels.h"
#include "engine/quant/quant_basic.h"
#include "engine/quant/quant_kquants.h"

using namespace wafer;
using wafer::kernels::Backend;
using wafer::kernels::MatrixView;

namespace {

// rows x cols random weights of `type` (quantized from floats, or raw floats for F32).
std::vector<uint8_t> random_weights(TensorType type, int64_t rows, int64_t cols, std::mt19937& rng) {
  std::normal_distribution<float> n01(0.f, 1.f);
  const size_t rb = *row_bytes(type, static_cast<uint64_t>(cols));
  std::vector<uint8_t> bytes(rb * static_cast<size_t>(rows));
  std::vector<float> row(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    for (float& v : row) v = 0.1f * n01(rng);
    uint8_t* out = bytes.data() + r * rb;
    switch (type) {
      case TensorType::Q8_0: quantize_row_q8_0(row.data(), out, row.size()); break;
      case TensorType::Q4_0: quantize_row_q4_0(row.data(), out, row.size()); break;
      case TensorType::Q4_K: quantize_row_q4_k_simple(row.data(), out, row.size()); break;
      default: std::memcpy(out, row.data(), rb); break;
    }
  }
  return bytes;
}

}  // namespace

TEST_CASE("pack with a pool writes the bytes of the one-thread repack", "[kernels]") {
  std::vector<const Backend*> backends = {&kernels::scalar_backend()};
  for (KernelIsa isa : {KernelIsa::Avx2, KernelIsa::Avx512, KernelIsa::Avx2Vnni, KernelIsa::Avx2VnniEvex,
                        KernelIsa::Amx, KernelIsa::AmxModel, KernelIsa::Avx512Model, KernelIsa::AmxBf16,
                        KernelIsa::AmxBf16Model, KernelIsa::Neon, KernelIsa::NeonDotprod})
    if (const Backend* b = kernels::simd_backend(isa)) backends.push_back(b);
  std::mt19937 rng(7);
  const int64_t cols = 512;
  for (const Backend* b : backends)
    for (TensorType type : {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q4_K, TensorType::F32})
      for (int64_t rows : {16, 40, 161, 1000})  // 40, 161: a partial last panel; 16: one panel for 3 threads
        for (int threads : {2, 3, 5}) {
          INFO(b->name() << " " << tensor_type_name(type) << " rows " << rows << " threads " << threads);
          const std::vector<uint8_t> w = random_weights(type, rows, cols, rng);
          const MatrixView view{type, rows, cols, *row_bytes(type, static_cast<uint64_t>(cols)), w.data()};
          ThreadPool pool(threads);
          auto one = b->pack(view);
          auto many = b->pack(view, &pool);
          REQUIRE(one.ok());
          REQUIRE(many.ok());
          CHECK(one->layout == many->layout);
          CHECK(one->act == many->act);
          const size_t bytes = one->layout == 0 ? w.size() : packed_bytes(type, rows, cols);
          if (one->layout == 0) CHECK(many->data == w.data());  // kept in place: nothing to compare
          else CHECK(std::memcmp(one->data, many->data, bytes) == 0);
        }
}
