// The NEON kernels for AArch64 CPUs without the dot-product instruction (Cortex-A53/A57/A72,
// Graviton 1): int8 dot products through SMULL + ADDP + SADALP (traits_neon.h).
#define WAFER_NEON_NS kernels_neon
#define WAFER_NEON_DOT false
#include "engine/kernels/neon/kernels_neon_impl.h"
