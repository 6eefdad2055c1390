// The AMX kernel tables on the hardware tiles (TileHw), compiled with the AVX-512 flags
// (the tile instructions are inline assembly and need none). The int8 table is handed out
// only where CPUID reports AMX-TILE and AMX-INT8, Linux grants the tile state and a check
// at first use finds it bit-identical to the AVX-512 VNNI kernel (dispatch.cpp); the BF16
// table where the CPU also has AMX-BF16 and its check finds it within its stated bound.
// Prefill attention on the BF16 tiles stays in them where the CPU has AMX-BF16 and its check
// finds it within FP32 rounding of attention in double precision. The same code on software
// models of the tiles and the vectors, for the tests on any x86 CPU:
// kernels/emulated/kernels_emulated.cpp.
#include "engine/kernels/amx/make_tile_kernels.h"
#include "engine/kernels/amx/tiles_hw.h"
#include "engine/kernels/avx512/traits_avx512.h"
#include "engine/kernels/isa_tables.h"

namespace wafer::isa_tables {

constinit const SimdKernels amx =
    simd::make_int8_tile_kernels<Avx512Traits, amx::TileHw, avx512>(KernelIsa::Amx, "avx512-vnni+amx");
constinit const SimdKernels amx_bf16 =
    simd::make_bf16_tile_kernels<Avx512Traits, amx::TileHw, avx512>(KernelIsa::AmxBf16, "avx512-vnni+amx-bf16");

}  // namespace wafer::isa_tables
