#include "engine/runtime/cpu_features.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <utility>

#include "engine/runtime/cpu_features_isa.h"
#include "engine/runtime/platform.h"

namespace wafer {
namespace {

// Physical cores among the CPUs this process may use, as the OS groups them.
void detect_cores(CpuFeatures& f) {
  const std::vector<int> cpus = platform::allowed_cpus();
  f.logical_cpus = static_cast<uint32_t>(cpus.size());
  f.core_cpus = platform::one_cpu_per_core(cpus);
  f.physical_cores = static_cast<uint32_t>(f.core_cpus.size());
  const uint32_t hint = cpu_isa::physical_cores_hint();  // where the OS groups none (macOS)
  if (hint != 0 && hint < f.physical_cores) {
    f.physical_cores = hint;
    f.core_cpus.resize(hint);
  }
}

CpuFeatures detect() {
  CpuFeatures f;
  const bool caches_known = platform::cache_sizes(f.l1d_bytes, f.l2_bytes, f.l3_bytes);
  cpu_isa::detect(f, caches_known);
  detect_cores(f);
  return f;
}

std::string kib(uint64_t bytes) {
  if (bytes == 0) return "unknown";
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes >> 10) + " KiB";
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

std::string describe(const CpuFeatures& f) {
  std::ostringstream out;
  out << "cpu: " << (f.brand.empty() ? f.vendor : f.brand) << "\n";
  out << "cores: " << f.physical_cores << " physical, " << f.logical_cpus << " logical\n";
  out << "simd:";
  const std::pair<const char*, bool> flags[] = {
      {"avx2", f.avx2},         {"fma", f.fma},           {"f16c", f.f16c},
      {"avx512f", f.avx512f},   {"avx512bw", f.avx512bw}, {"avx512vl", f.avx512vl},
      {"avx512vnni", f.avx512vnni}, {"avx512bf16", f.avx512bf16}, {"avx_vnni", f.avx_vnni},
      {"amx_tile", f.amx_tile}, {"amx_int8", f.amx_int8}, {"amx_bf16", f.amx_bf16}, {"neon", f.neon},
      {"dotprod", f.dotprod},   {"i8mm", f.i8mm},         {"sve", f.sve},
      {"bf16", f.bf16},         {"fp16", f.fp16}};
  bool any = false;
  for (const auto& [name, on] : flags)
    if (on) {
      out << " " << name;
      any = true;
    }
  if (!any) out << " none";
  out << "\n";
  out << "caches: L1d " << kib(f.l1d_bytes) << ", L2 " << kib(f.l2_bytes) << ", L3 " << kib(f.l3_bytes);
  if (f.l3_sharing) out << " (shared by " << f.l3_sharing << " CPUs)";
  out << "\n";
  return out.str();
}

bool request_amx_permission() {
  const CpuFeatures& f = cpu_features();
  if (!f.amx_tile || !f.amx_int8) return false;
  return platform::request_amx_state();
}


#if !defined(__x86_64__) && !defined(__aarch64__)
// Any other architecture: no SIMD kernels (the scalar backend), caches from sysfs only.
namespace cpu_isa {
void detect(CpuFeatures&, bool) {}
uint32_t physical_cores_hint() { return 0; }
}  // namespace cpu_isa
#endif

}  // namespace wafer
