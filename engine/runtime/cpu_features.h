// What this CPU can do, read once: the SIMD extensions the kernels are compiled for, the
// cache sizes the thread slices are sized against, and the number of physical cores the
// thread pool defaults to. The engine chooses its kernels from this once, at load.
// x86-64 reads CPUID (and XGETBV, so a register state the OS does not save counts as
// absent; cpu_features_x86.cpp); AArch64 reads the kernel's hardware capabilities
// (getauxval on Linux, sysctlbyname on macOS; cpu_features_arm.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wafer {

struct CpuFeatures {
  std::string vendor;  // "GenuineIntel", "AuthenticAMD", ...
  std::string brand;   // CPUID brand string, trimmed

  bool avx2 = false;
  bool fma = false;
  bool f16c = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512vl = false;
  bool avx512vnni = false;
  bool avx512bf16 = false;
  bool avx_vnni = false;  // VEX-encoded VNNI (Alder Lake, Zen 5)
  bool amx_tile = false;  // CPUID only; the OS must also grant permission (amx_permission)
  bool amx_int8 = false;
  bool amx_bf16 = false;

  // AArch64 (all false elsewhere): Advanced SIMD, the ARMv8.2 int8 dot product (SDOT),
  // the ARMv8.6 int8 matrix multiply (SMMLA), SVE, BF16 and half-precision arithmetic.
  bool neon = false;
  bool dotprod = false;
  bool i8mm = false;
  bool sve = false;
  bool bf16 = false;
  bool fp16 = false;

  // Per-core data/unified cache sizes in bytes (0 when unknown). l3 is the whole L3 the
  // first CPU shares, l3_sharing how many logical CPUs share it.
  uint64_t l1d_bytes = 0;
  uint64_t l2_bytes = 0;
  uint64_t l3_bytes = 0;
  uint32_t l3_sharing = 0;

  uint32_t logical_cpus = 1;    // CPUs this process may run on (its affinity mask)
  uint32_t physical_cores = 1;  // distinct cores among them (SMT siblings counted once)
  std::vector<int> core_cpus;   // one logical CPU id per physical core, for pinning

  // The kernel families the engine has; each needs its whole group of extensions.
  bool has_avx2_kernels() const { return avx2 && fma && f16c; }
  bool has_avx512_kernels() const {
    return has_avx2_kernels() && avx512f && avx512bw && avx512vl && avx512vnni;
  }
  bool has_neon_kernels() const { return neon; }
  bool has_neon_dotprod_kernels() const { return neon && dotprod; }
};

// Detected on first call, then cached (thread-safe).
const CpuFeatures& cpu_features();

// One line per fact, for `wafer info` and benchmark headers.
std::string describe(const CpuFeatures& features);

// Asks Linux for permission to use the AMX tile data state (arch_prctl
// ARCH_REQ_XCOMP_PERM). Returns false when the CPU lacks AMX or the kernel refuses (and
// on every CPU that is not x86-64).
bool request_amx_permission();

}  // namespace wafer
