// The kernel table of each instruction set, as its own folder defines it (each file compiled
// with that set's flags, from simd/make_kernels.h). Constant data, initialized before any
// code runs, so reading a table runs nothing of its instruction set; calling into it is for
// dispatch.cpp alone, once CPUID allowed it. A table that extends another leaves the fields
// it takes from it null: dispatch.cpp completes it before handing it out.
#pragma once

#include "engine/kernels/dispatch.h"

namespace wafer::isa_tables {

#if defined(__x86_64__)
extern const SimdKernels avx2;            // avx2/kernels_avx2.cpp
extern const SimdKernels avx512;          // avx512/kernels_avx512.cpp
// avxvnni/: the int8 kernels on AVX-VNNI, and the same code in the EVEX encoding; the rest
// is AVX2's.
extern const SimdKernels avx2_vnni;
extern const SimdKernels avx2_vnni_evex;
// amx/kernels_amx.cpp: the matmuls (and prefill attention) on the int8 and the BF16 tiles;
// the rest is AVX-512 VNNI's.
extern const SimdKernels amx;
extern const SimdKernels amx_bf16;
// emulated/: the AVX-512 VNNI and AMX kernels on software models of their instructions.
extern const SimdKernels avx512_emulated;
extern const SimdKernels amx_emulated;       // extends avx512_emulated
extern const SimdKernels amx_bf16_emulated;  // likewise

// The vectorized activation quantizers (avx2/quantize_avx2.cpp, avx512/quantize_avx512.cpp),
// twins of quantize_act_rows.
void quantize_avx2(const QuantizedActs& view, const float* x, int64_t x_stride, int t_begin, int t_end);
void quantize_avx512(const QuantizedActs& view, const float* x, int64_t x_stride, int t_begin, int t_end);
#elif defined(__aarch64__)
extern const SimdKernels neon;          // neon/kernels_neon.cpp
extern const SimdKernels neon_dotprod;  // neon/kernels_neon_dotprod.cpp
#endif

}  // namespace wafer::isa_tables
