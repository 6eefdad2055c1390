// Every kernel table this build hands out is complete: each per-ISA file fills its table by
// field name (simd/make_kernels.h, amx/make_tile_kernels.h) and dispatch.cpp completes the
// tables that extend another, so a field left out would only show as a null call at run
// time. Checked here for every table at once, including those whose kernels this CPU
// cannot run (reading a table runs none of its code).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "engine/kernels/dispatch.h"
#include "engine/kernels/isa_tables.h"

using namespace wafer;

namespace {

static_assert(sizeof(SimdKernels) == 14 * sizeof(void*), "a new field of SimdKernels: check it below");

// Every field but attend_f16_tiles set; attend_f16_tiles set exactly when `tiles`.
void check_complete(const SimdKernels& k, bool tiles) {
  INFO("table " << k.name);
  CHECK(k.matmul != nullptr);
  CHECK(k.matmul_prefetch != nullptr);
  CHECK(k.matmul_prefetch_near != nullptr);
  CHECK(k.matmul_prefetch_l2 != nullptr);
  CHECK(k.quantize != nullptr);
  CHECK(k.attend != nullptr);
  CHECK(k.attend_f16 != nullptr);
  CHECK(k.attend_q8 != nullptr);
  CHECK((k.attend_f16_tiles != nullptr) == tiles);
  CHECK(k.swiglu != nullptr);
  CHECK(k.add_rms_norm != nullptr);
  CHECK(k.rope_neox != nullptr);
}

bool attends_on_tiles(KernelIsa isa) {
  switch (isa) {
    case KernelIsa::AmxModel:
    case KernelIsa::AmxBf16Model: return true;
    case KernelIsa::Amx:
    case KernelIsa::AmxBf16: return attend_tiles_state() == AmxStatus::InUse;
    default: return false;
  }
}

}  // namespace

TEST_CASE("every kernel table handed out has every kernel, its own ISA and its own name") {
  int tables = 0;
  std::set<std::string> names;
  for (int i = 0; i <= static_cast<int>(KernelIsa::NeonDotprod); ++i) {  // NeonDotprod: the last KernelIsa
    const auto isa = static_cast<KernelIsa>(i);
    const SimdKernels* k = simd_kernels(isa);
    if (!k) continue;
    ++tables;
    REQUIRE(k->name != nullptr);
    CHECK(k->isa == isa);
    CHECK(names.insert(k->name).second);
    check_complete(*k, attends_on_tiles(isa));
  }
#if defined(__x86_64__)
  CHECK(tables >= 3);  // the emulated tables, on every x86 CPU
#elif defined(__aarch64__)
  CHECK(tables >= 1);  // plain NEON, on every AArch64 CPU
#endif
}

#if defined(__x86_64__)
TEST_CASE("the x86 tables, whether or not this CPU runs them, are complete once extended") {
  using namespace isa_tables;
  check_complete(avx2, false);
  check_complete(avx512, false);
  check_complete(avx512_emulated, false);
  // The tables that extend another set only their own kernels.
  for (const SimdKernels* own : {&avx2_vnni, &avx2_vnni_evex}) {
    INFO("table " << own->name);
    CHECK(own->matmul != nullptr);
    CHECK(own->matmul_prefetch != nullptr);
    CHECK(own->matmul_prefetch_near != nullptr);
    CHECK(own->matmul_prefetch_l2 != nullptr);
    CHECK(own->attend_q8 != nullptr);
    CHECK(own->attend == nullptr);
  }
  for (const SimdKernels* own : {&amx, &amx_bf16, &amx_emulated, &amx_bf16_emulated}) {
    INFO("table " << own->name);
    CHECK(own->matmul != nullptr);
    CHECK(own->attend_f16_tiles != nullptr);
    CHECK(own->attend == nullptr);
  }
  CHECK(amx.matmul_prefetch == nullptr);  // the int8 tiles keep the AVX-512 twins
  CHECK(amx_bf16.matmul_prefetch != nullptr);
}

TEST_CASE("a table that extends another takes the rest of its kernels from it") {
  const SimdKernels* amx_model = simd_kernels(KernelIsa::AmxModel);
  const SimdKernels* avx512_model = simd_kernels(KernelIsa::Avx512Model);
  REQUIRE(amx_model != nullptr);
  REQUIRE(avx512_model != nullptr);
  CHECK(amx_model->matmul != avx512_model->matmul);
  CHECK(amx_model->matmul_prefetch == avx512_model->matmul_prefetch);
  CHECK(amx_model->quantize == avx512_model->quantize);
  CHECK(amx_model->attend_f16 == avx512_model->attend_f16);
  const SimdKernels* bf16_model = simd_kernels(KernelIsa::AmxBf16Model);
  REQUIRE(bf16_model != nullptr);
  CHECK(bf16_model->matmul_prefetch != avx512_model->matmul_prefetch);
  CHECK(bf16_model->rope_neox == avx512_model->rope_neox);
  for (KernelIsa isa : {KernelIsa::Avx2Vnni, KernelIsa::Avx2VnniEvex}) {
    const SimdKernels* vnni = simd_kernels(isa);
    if (!vnni) continue;
    CHECK(vnni->matmul != isa_tables::avx2.matmul);
    CHECK(vnni->attend == isa_tables::avx2.attend);
    CHECK(vnni->quantize == isa_tables::avx2.quantize);
  }
}
#endif
