// The int8 kernels for CPUs with AVX2 and AVX-VNNI but no AVX-512 (compiled with -mavx2
// -mfma -mf16c -mavxvnni): the AVX2 kernels with one vpdpbusd per 4-byte int8 dot product
// where plain AVX2 needs vpmaddubsw + vpmaddwd + vpaddd (and, for Q8_0, a sign trick on
// top): 8 lanes, token tiles of 4. The float kernels (attention over float and half caches,
// SwiGLU) and the activation quantizer are the AVX2 ones (dispatch.cpp completes the table
// with them).
#include <immintrin.h>

#include "engine/kernels/avx2/traits_avx2.h"
#include "engine/kernels/isa_tables.h"
#include "engine/kernels/simd/make_kernels.h"

namespace wafer::isa_tables {

constinit const SimdKernels avx2_vnni = simd::make_int8_kernels<Avx2Traits<true>>(KernelIsa::Avx2Vnni, "avx2-vnni");

}  // namespace wafer::isa_tables
