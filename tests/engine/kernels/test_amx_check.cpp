// The AMX tile matmul (engine/kernels/amx) and the check it passes before use
// (engine/kernels/amx_check.h). On every x86 machine the tile kernels run on the software
// models of the tile and vector instructions (KernelIsa::AmxModel) and must give the bits
// of the AVX-512 VNNI kernel on the same vector model (KernelIsa::Avx512Model); where the
// CPU has AVX-512, the vector model must give the real kernel's bits; on a CPU with AMX the
// hardware tile kernels must too. (test_dispatch runs all of them against the scalar
// reference as well.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/kernels/amx_check.h"
#if defined(__x86_64__)
#include "engine/kernels/amx/amx_bf16_kernels.h"
#include "engine/kernels/amx/tile_model.h"
#include "engine/kernels/emulated/vec16_model.h"
#endif
#include "engine/runtime/cpu_features.h"
#include "engine/quant/float16.h"
#include "engine/quant/quant.h"
#include "engine/quant/quant_repack.h"
#include "engine/kernels/dispatch.h"
#include "engine/quant/tensor_types.h"
#include "tests/support/testing.h"

using namespace wafer;

namespace {

using Aligned = test::AlignedBytes;

// Random ggml rows of a legacy type (scales kept finite), repacked; random activations.
// near > 0: within near x the largest output instead of bit for bit.
void compare(const SimdKernels& tiles, const SimdKernels& vnni, TensorType t, int64_t rows, int64_t cols,
             int n_tokens, std::mt19937& rng, float near = 0) {
  INFO(tensor_type_name(t) << " rows " << rows << " cols " << cols << " tokens " << n_tokens);
  const size_t wrb = *row_bytes(t, static_cast<uint64_t>(cols));
  const int block_bytes = static_cast<int>(tensor_type_info(static_cast<uint32_t>(t))->block_bytes);
  std::vector<uint8_t> w(wrb * static_cast<size_t>(rows));
  for (auto& b : w) b = static_cast<uint8_t>(rng());
  std::uniform_real_distribution<float> scale(0.001f, 0.05f);
  for (size_t off = 0; off < w.size(); off += block_bytes) {
    const uint16_t h = f32_to_f16(scale(rng));
    std::memcpy(w.data() + off, &h, 2);
  }
  Aligned packed(packed_bytes(t, rows, cols));
  REQUIRE(repack(t, w.data(), rows, cols, packed.p));
  const PackedMatrix pm{t, rows, cols, packed.p};

  std::normal_distribution<float> n01(0.f, 1.f);
  std::vector<float> x(static_cast<size_t>(n_tokens * cols));
  for (auto& v : x) v = n01(rng);
  Aligned acts(quantized_acts_bytes(t, cols, n_tokens));
  const QuantizedActs q = quantize_acts(t, x.data(), cols, n_tokens, cols, acts.p);
  REQUIRE(q.rows != nullptr);

  const int64_t stride = rows + 5;
  std::vector<float> a(static_cast<size_t>(stride * n_tokens), -7.f), b(a.size(), -7.f);
  const int64_t split = pm.panels() / 2;  // two threads' slices
  tiles.matmul(pm, q, a.data(), stride, 0, split);
  tiles.matmul(pm, q, a.data(), stride, split, pm.panels());
  vnni.matmul(pm, q, b.data(), stride, 0, pm.panels());
  if (near == 0) {
    REQUIRE(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    return;
  }
  float largest = 0;
  for (float v : b) largest = std::max(largest, std::fabs(v));
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("output " << i << ": " << a[i] << " against " << b[i] << ", largest " << largest);
    REQUIRE(std::fabs(a[i] - b[i]) <= near * largest);
  }
}

void check_tiles(const SimdKernels& tiles, KernelIsa vnni_isa = KernelIsa::Avx512) {
  const SimdKernels* vnni = simd_kernels(vnni_isa);
  REQUIRE(vnni != nullptr);
  std::mt19937 rng(77);
  for (TensorType t : {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q5_0})
    for (int64_t rows : {16, 45})
      for (int64_t cols : {32, 96, 256})
        for (int n : {15, 16, 17, 32, 37, 64}) compare(tiles, *vnni, t, rows, cols, n, rng);
  // More panels than one group of unpacked panels holds (5 at 4,864 columns), in both
  // slices, the last panel partial.
  for (TensorType t : {TensorType::Q8_0, TensorType::Q4_0}) compare(tiles, *vnni, t, 200, 4864, 33, rng);
  // What the tiles hand to the VNNI kernel: K-quants at any batch, decode.
  for (TensorType t : {TensorType::Q4_K, TensorType::Q6_K}) compare(tiles, *vnni, t, 20, 256, 33, rng);
  compare(tiles, *vnni, TensorType::Q8_0, 20, 64, 1, rng);
}

// The AVX-512 VNNI kernel: on the hardware where the CPU has it, else on the model.
const SimdKernels* vnni_kernels() {
  const SimdKernels* k = simd_kernels(KernelIsa::Avx512);
  return k ? k : simd_kernels(KernelIsa::Avx512Model);
}

// A kernel that is wrong in one product of one block: the check must notice.
void off_by_one(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t pb, int64_t pe) {
  vnni_kernels()->matmul(w, x, y, y_stride, pb, pe);
  if (pb == 0) y[y_stride * 20 + 3] = std::nextafter(y[y_stride * 20 + 3], 1e30f);
}

// Tiles on the CPU that the engine does not use: a skip when the machine is the reason (the
// OS refused the tile state, no VNNI kernels to finish with), a failure for any other reason.
[[noreturn]] void skip_unused_tiles(AmxStatus status) {
  INFO("tiles: " << to_string(status));
  REQUIRE((status == AmxStatus::TileStateRefused || status == AmxStatus::NoVnniKernels));
  if (status == AmxStatus::NoVnniKernels) test::skip_test("this CPU has no AVX-512 VNNI for the AMX kernels to finish with");
  test::skip_test("the OS refused the AMX tile state (ARCH_REQ_XCOMP_PERM)");
}

}  // namespace

TEST_CASE("the AMX tile kernels on the software model give the AVX-512 VNNI kernel's bits") {
  const SimdKernels* model = simd_kernels(KernelIsa::AmxModel);
  if (!model) test::skip_test("not an x86 build: the tile kernels are not compiled");
  CHECK(std::string(model->name) == "amx-model");
  check_tiles(*model, KernelIsa::Avx512Model);
  CHECK(amx_agrees(model->matmul, simd_kernels(KernelIsa::Avx512Model)->matmul));
}

TEST_CASE("the model of the AVX-512 vectors gives the AVX-512 VNNI kernel's bits, where the CPU has it") {
  const SimdKernels* model = simd_kernels(KernelIsa::Avx512Model);
  if (!model) test::skip_test("not an x86 build: the model is not compiled");
  if (!simd_kernels(KernelIsa::Avx512))
    test::skip_test("this CPU has no AVX-512 VNNI: the model of its vectors was checked only against the scalar reference");
  std::mt19937 rng(78);
  for (TensorType t : {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q5_0})
    for (int n : {1, 3, 8, 17, 33}) compare(*model, *simd_kernels(KernelIsa::Avx512), t, 45, 96, n, rng);
}

TEST_CASE("the AMX check refuses a kernel whose results differ") {
  if (!vnni_kernels()) test::skip_test("not an x86 build: no AVX-512 VNNI kernel to compare with");
  CHECK_FALSE(amx_agrees(off_by_one, vnni_kernels()->matmul));
}

TEST_CASE("the AMX tile kernels on the hardware, where the CPU has AMX") {
  const CpuFeatures& cpu = cpu_features();
  const AmxStatus status = amx_state();
  if (!cpu.amx_tile || !cpu.amx_int8) {
    CHECK(status == AmxStatus::NotOnCpu);
    CHECK(simd_kernels(KernelIsa::Amx) == nullptr);
    test::skip_test("this CPU has no AMX: the hardware tile kernels were not run");
  }
  INFO("amx: " << to_string(status));
  const SimdKernels* amx = simd_kernels(KernelIsa::Amx);
  CHECK((amx != nullptr) == (status == AmxStatus::InUse));
  // The real instructions disagreeing with their model is a bug to fix, even though the
  // engine then safely keeps to the VNNI kernel.
  CHECK(status != AmxStatus::DiffersFromVnni);
  if (!amx) skip_unused_tiles(status);
  check_tiles(*amx);
  CHECK(best_simd_kernels() == amx);
  CHECK(best_simd_kernels(false) == simd_kernels(KernelIsa::Avx512));
}

namespace {

// A kernel one unit off in one output: far outside the BF16 kernel's bound there.
void one_unit_off(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t pb,
                  int64_t pe) {
  vnni_kernels()->matmul(w, x, y, y_stride, pb, pe);
  if (pb == 0) y[y_stride * 20 + 3] += 1.0f;
}

}  // namespace

TEST_CASE("the BF16 check accepts the BF16 tiles' model and refuses a result outside the bound") {
  if (!vnni_kernels()) test::skip_test("not an x86 build: no AVX-512 VNNI kernel to compare with");
  CHECK(amx_bf16_close(vnni_kernels()->matmul, vnni_kernels()->matmul));
  CHECK_FALSE(amx_bf16_close(one_unit_off, vnni_kernels()->matmul));
  const SimdKernels* model = simd_kernels(KernelIsa::AmxBf16Model);
  REQUIRE(model != nullptr);
  CHECK(std::string(model->name) == "amx-bf16-model");
  CHECK(amx_bf16_close(model->matmul, simd_kernels(KernelIsa::Avx512Model)->matmul));
}

// Where the CPU has AMX-BF16: the real TDPBF16PS and vector unpacking against their models,
// on every pairing of token tiles and panels. Within 1e-5 of the largest output, not bit for
// bit: the hardware sums the 16 pairs of a TDPBF16PS in an order of its own (one pair is
// modelled exactly; a whole row matched neither sequential nor tree order), while a layout
// or rounding mistake would be off by the size of the values.
TEST_CASE("the BF16 tile kernels on the hardware are their model, where the CPU has AMX-BF16") {
  const CpuFeatures& cpu = cpu_features();
  if (!cpu.amx_tile || !cpu.amx_bf16) {
    CHECK(simd_kernels(KernelIsa::AmxBf16) == nullptr);
    test::skip_test("this CPU has no AMX-BF16: the hardware BF16 tiles were not run");
  }
  const AmxStatus status = amx_bf16_state();
  INFO("BF16 tiles: " << to_string(status));
  CHECK(status != AmxStatus::OutsideBound);
  const SimdKernels* hw = simd_kernels(KernelIsa::AmxBf16);
  CHECK((hw != nullptr) == (status == AmxStatus::InUse));
  if (!hw) skip_unused_tiles(status);
  const SimdKernels* model = simd_kernels(KernelIsa::AmxBf16Model);
  REQUIRE(model != nullptr);
  std::mt19937 rng(79);
  for (TensorType t : {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q5_0})
    for (int n : {31, 32, 37, 48, 64, 75}) compare(*hw, *model, t, 45, 96, n, rng, 1e-5f);
  // Several groups of panels and passes over K, the last panel partial.
  compare(*hw, *model, TensorType::Q8_0, 200, 4864, 40, rng, 1e-5f);
  // Chosen only when asked for.
  CHECK(best_simd_kernels(true, true) == hw);
  CHECK(best_simd_kernels() == simd_kernels(KernelIsa::Amx));
}

#if defined(__x86_64__)
// The BF16 tiles' vector rounding (AmxBf16Impl::pair, on the model of the vectors) against
// its scalar twin, bf16_round: ties to even, signs, the largest floats (to infinity),
// denormals, zeros, and random values.
TEST_CASE("the BF16 tiles round to nearest even as their scalar twin does") {
  using Impl = simd::AmxBf16Impl<simd::Vec16Model, amx::TileModel>;
  const auto bits = [](uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  };
  std::vector<float> values = {1.0f, bits(0x3f808000u), bits(0x3f818000u), bits(0x3f80ffffu), -3.5f,
                               bits(0xbf808000u), 65504.0f, 3.4028235e38f, bits(0x7f7f8000u), 1e-40f,
                               0.0f, -0.0f, bits(0x7f800000u)};
  CHECK(simd::bf16_round(bits(0x3f808000u)) == 0x3f80);  // a tie: to the even 1.0
  CHECK(simd::bf16_round(bits(0x3f818000u)) == 0x3f82);  // a tie: up to the even neighbour
  CHECK(simd::bf16_round(3.4028235e38f) == 0x7f80);      // past the largest BF16: infinity
  std::mt19937 rng(80);
  std::uniform_int_distribution<uint32_t> any(0, 0x7f7fffffu);
  for (int i = 0; i < 1000; ++i) values.push_back(bits(any(rng) | ((rng() & 1u) << 31)));
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    simd::Vec16Model::F lo{}, hi{};
    for (int l = 0; l < 16; ++l) {
      lo.v[l] = values[(i + l) % values.size()];
      hi.v[l] = values[(i + l + 1) % values.size()];
    }
    const simd::Vec16Model::I got = Impl::pair(lo, hi);
    for (int l = 0; l < 16; ++l) {
      INFO("lo " << lo.v[l] << " hi " << hi.v[l]);
      const uint32_t want = simd::bf16_round(lo.v[l]) | static_cast<uint32_t>(simd::bf16_round(hi.v[l])) << 16;
      REQUIRE(static_cast<uint32_t>(got.v[l]) == want);
    }
  }
}
#endif
