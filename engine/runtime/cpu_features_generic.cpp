// CPU feature detection on architectures with neither x86-64 nor AArch64 kernels: no SIMD
// flags (the engine computes with the scalar reference), the architecture's name only.
#if !defined(__x86_64__) && !defined(__aarch64__)
#include "engine/runtime/cpu_features_isa.h"

namespace wafer::cpu_isa {

void detect(CpuFeatures& f, bool) { f.vendor = "unknown architecture"; }

uint32_t physical_cores_hint() { return 0; }

}  // namespace wafer::cpu_isa
#endif
