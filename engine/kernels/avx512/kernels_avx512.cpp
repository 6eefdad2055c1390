// The kernel table for AVX-512 with VNNI (compiled with -mavx512f -mavx512bw -mavx512vl
// -mavx512vnni -mfma -mf16c): 16 lanes = one whole 16-row panel per vector, vpdpbusd for the
// int8 dot products, token tiles of 8 for prefill.
#include "engine/kernels/avx512/traits_avx512.h"
#include "engine/kernels/isa_tables.h"
#include "engine/kernels/simd/make_kernels.h"

namespace wafer::isa_tables {

constinit const SimdKernels avx512 =
    simd::make_kernels<Avx512Traits>(KernelIsa::Avx512, "avx512-vnni", quantize_avx512);

}  // namespace wafer::isa_tables
