// The kernel table with the ARMv8.2 dot product (SDOT; compiled with
// -march=armv8.2-a+dotprod): Apple M1 and later, Graviton 2 and later, Neoverse,
// Cortex-A76+. Activations are quantized by the scalar reference.
#include "engine/kernels/isa_tables.h"
#include "engine/kernels/neon/traits_neon.h"
#include "engine/kernels/simd/make_kernels.h"

namespace wafer::isa_tables {

constinit const SimdKernels neon_dotprod =
    simd::make_kernels<NeonTraits<true>>(KernelIsa::NeonDotprod, "neon-dotprod", quantize_act_rows);

}  // namespace wafer::isa_tables
