// The per-architecture half of cpu_features.cpp: exactly one of cpu_features_x86.cpp and
// cpu_features_arm.cpp defines these for a build (the other compiles to nothing), and
// cpu_features_generic.cpp covers every other architecture.
#pragma once

#include "engine/runtime/cpu_features.h"

namespace wafer::cpu_isa {

// Fills vendor, brand and the SIMD flags. caches_known: whether sysfs gave the cache sizes;
// if not, the architecture's own source fills them where it has one.
void detect(CpuFeatures& f, bool caches_known);

// Physical cores where the OS reports them without sysfs (macOS), else 0.
uint32_t physical_cores_hint();

}  // namespace wafer::cpu_isa
