// The NEON kernels with the ARMv8.2 dot product (SDOT; compiled with
// -march=armv8.2-a+dotprod): Apple M1 and later, Graviton 2 and later, Neoverse, Cortex-A76+.
#define WAFER_NEON_NS kernels_neon_dotprod
#define WAFER_NEON_DOT true
#include "engine/kernels/neon/kernels_neon_impl.h"
