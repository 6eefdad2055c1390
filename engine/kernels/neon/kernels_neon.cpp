// The kernel table for AArch64 CPUs without the dot-product instruction (Cortex-A53/A57/A72,
// Graviton 1): int8 dot products through SMULL + ADDP + SADALP (traits_neon.h). Activations
// are quantized by the scalar reference.
#include "engine/kernels/isa_tables.h"
#include "engine/kernels/neon/traits_neon.h"
#include "engine/kernels/simd/make_kernels.h"

namespace wafer::isa_tables {

constinit const SimdKernels neon = simd::make_kernels<NeonTraits<false>>(KernelIsa::Neon, "neon", quantize_act_rows);

}  // namespace wafer::isa_tables
