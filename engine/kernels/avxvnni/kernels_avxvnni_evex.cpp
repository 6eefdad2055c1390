// The AVX-VNNI int8 kernels (kernels_avxvnni.cpp) compiled with -mavx512vl -mavx512vnni
// instead of -mavxvnni: the EVEX encoding of vpdpbusd on 256-bit vectors, same results,
// which AVX-512 VNNI machines run, so the tests check this code against the scalar
// reference there even though the machine lacks AVX-VNNI itself. Never chosen for
// computing: there the AVX-512 kernels are.
#include <immintrin.h>

#include "engine/kernels/avx2/traits_avx2.h"
#include "engine/kernels/isa_tables.h"
#include "engine/kernels/simd/make_kernels.h"

namespace wafer::isa_tables {

constinit const SimdKernels avx2_vnni_evex =
    simd::make_int8_kernels<Avx2Traits<true>>(KernelIsa::Avx2VnniEvex, "avx2-vnni-evex");

}  // namespace wafer::isa_tables
