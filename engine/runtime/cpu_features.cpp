#include "engine/runtime/cpu_features.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "engine/runtime/cpu_features_isa.h"
#include "engine/runtime/platform.h"

namespace wafer {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// "32K", "1024K", "32M" (sysfs cache size) -> bytes.
uint64_t parse_size(const std::string& s) {
  if (s.empty()) return 0;
  uint64_t v = 0;
  size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') v = v * 10 + static_cast<uint64_t>(s[i++] - '0');
  if (i < s.size() && (s[i] == 'K' || s[i] == 'k')) v <<= 10;
  if (i < s.size() && (s[i] == 'M' || s[i] == 'm')) v <<= 20;
  return v;
}

// Cache sizes from sysfs when the kernel exposes them (not always so in VMs).
bool caches_from_sysfs(CpuFeatures& f) {
  bool any = false;
  for (int idx = 0; idx < 8; ++idx) {
    std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(idx) + "/";
    std::string level = read_text(dir + "level");
    if (level.empty()) break;
    std::string type = read_text(dir + "type");
    uint64_t size = parse_size(read_text(dir + "size"));
    any = true;
    if (level == "1" && type == "Data") f.l1d_bytes = size;
    if (level == "2") f.l2_bytes = size;
    if (level == "3") f.l3_bytes = size;
  }
  return any && f.l2_bytes != 0;
}

// Physical cores among the CPUs this process may use: SMT siblings share a
// thread_siblings_list in sysfs; without sysfs every CPU counts as a core.
void detect_cores(CpuFeatures& f) {
  std::vector<int> cpus;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
#endif
  if (cpus.empty()) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (int c = 0; c < std::max(1L, n); ++c) cpus.push_back(c);
  }
  f.logical_cpus = static_cast<uint32_t>(cpus.size());
  std::set<std::string> seen;
  for (int c : cpus) {
    std::string sib =
        read_text("/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/thread_siblings_list");
    if (sib.empty()) sib = std::to_string(c);
    if (seen.insert(sib).second) f.core_cpus.push_back(c);
  }
  f.physical_cores = static_cast<uint32_t>(f.core_cpus.size());
  const uint32_t hint = cpu_isa::physical_cores_hint();  // no sysfs (macOS)
  if (hint != 0 && hint < f.physical_cores) {
    f.physical_cores = hint;
    f.core_cpus.resize(hint);
  }
}

CpuFeatures detect() {
  CpuFeatures f;
  const bool caches_known = caches_from_sysfs(f);
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
