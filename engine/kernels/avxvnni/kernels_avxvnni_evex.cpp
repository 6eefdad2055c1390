// kernels_avxvnni.cpp compiled with -mavx512vl -mavx512vnni instead of -mavxvnni (EVEX
// vpdpbusd on 256-bit vectors, same results), as kernels_avxvnni_evex::*: the tests run
// the AVX-VNNI kernels' code on AVX-512 VNNI machines through it (simd_kernels.h,
// KernelIsa::AvxVnniEvex). Never chosen for computing otherwise: the AVX-512 kernels are.
#define WAFER_AVXVNNI_NS kernels_avxvnni_evex
#include "engine/kernels/avxvnni/kernels_avxvnni.cpp"
