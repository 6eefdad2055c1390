// The AVX-512 VNNI kernels and the AMX tile kernels instantiated over software models of
// their instructions (vec16_model.h for the vectors, amx/tile_model.h for the tiles), in the
// base instruction set: KernelIsa::Avx512Model, AmxModel and AmxBf16Model. They compute what
// the hardware kernels compute, bit for bit, so the tests run that code on every x86 CPU;
// they are never chosen to compute (a plain loop per lane is many times slower than the
// scalar backend). Activations are quantized by the scalar reference (the AVX-512 quantizer
// is written in intrinsics).
#include "engine/kernels/amx/make_tile_kernels.h"
#include "engine/kernels/amx/tile_model.h"
#include "engine/kernels/emulated/vec16_model.h"
#include "engine/kernels/isa_tables.h"
#include "engine/kernels/simd/make_kernels.h"

namespace wafer::isa_tables {

constinit const SimdKernels avx512_emulated =
    simd::make_kernels<simd::Vec16Model>(KernelIsa::Avx512Model, "avx512-model", quantize_act_rows);
constinit const SimdKernels amx_emulated =
    simd::make_int8_tile_kernels<simd::Vec16Model, amx::TileModel, avx512_emulated>(KernelIsa::AmxModel,
                                                                                     "amx-model");
constinit const SimdKernels amx_bf16_emulated =
    simd::make_bf16_tile_kernels<simd::Vec16Model, amx::TileModel, avx512_emulated>(KernelIsa::AmxBf16Model,
                                                                                     "amx-bf16-model");

}  // namespace wafer::isa_tables
