// CPU feature detection on AArch64. Linux: the kernel's hardware-capability words
// (getauxval AT_HWCAP / AT_HWCAP2; the kernel sets a bit only when it also saves the
// registers involved) and the main ID register for the name. macOS: sysctlbyname
// (hw.optional.arm.FEAT_*, the performance cores' caches and core count).
#if defined(__aarch64__)
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "engine/runtime/cpu_features_isa.h"

#if defined(__linux__)
#include <sys/auxv.h>
#elif defined(__APPLE__)
#include <sys/sysctl.h>
#include <sys/types.h>
#endif

namespace wafer::cpu_isa {
namespace {

#if defined(__linux__)
// The bits of <asm/hwcap.h> (spelled out: older headers lack the newer ones).
constexpr unsigned long kHwcapAsimd = 1ul << 1;
constexpr unsigned long kHwcapAsimdHp = 1ul << 10;
constexpr unsigned long kHwcapAsimdDp = 1ul << 20;
constexpr unsigned long kHwcapSve = 1ul << 22;
constexpr unsigned long kHwcap2I8mm = 1ul << 13;
constexpr unsigned long kHwcap2Bf16 = 1ul << 14;

const char* implementer_name(unsigned id) {
  switch (id) {
    case 0x41: return "Arm";
    case 0x42: return "Broadcom";
    case 0x48: return "HiSilicon";
    case 0x4e: return "NVIDIA";
    case 0x51: return "Qualcomm";
    case 0x61: return "Apple";
    case 0xc0: return "Ampere";
    default: return "unknown implementer";
  }
}

// "Arm part 0xd0c" from MIDR_EL1 (sysfs; absent in some containers and under qemu).
void name_from_midr(CpuFeatures& f) {
  std::ifstream in("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1");
  std::string text;
  std::getline(in, text);
  f.vendor = "aarch64";
  if (text.empty()) return;
  char* end = nullptr;
  const unsigned long midr = std::strtoul(text.c_str(), &end, 16);
  if (end == text.c_str()) return;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s part 0x%03lx", implementer_name((midr >> 24) & 0xff), (midr >> 4) & 0xfff);
  f.vendor = implementer_name((midr >> 24) & 0xff);
  f.brand = buf;
}
#elif defined(__APPLE__)
uint64_t sysctl_u64(const char* name) {
  uint64_t v = 0;
  size_t n = sizeof v;
  if (sysctlbyname(name, &v, &n, nullptr, 0) != 0) return 0;
  if (n == sizeof(uint32_t)) {  // most hw.* values are 32-bit
    uint32_t v32 = 0;
    n = sizeof v32;
    if (sysctlbyname(name, &v32, &n, nullptr, 0) != 0) return 0;
    return v32;
  }
  return v;
}
#endif

}  // namespace

void detect(CpuFeatures& f, [[maybe_unused]] bool caches_known) {
#if defined(__linux__)
  const unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
  f.neon = (hw & kHwcapAsimd) != 0;
  f.fp16 = (hw & kHwcapAsimdHp) != 0;
  f.dotprod = (hw & kHwcapAsimdDp) != 0;
  f.sve = (hw & kHwcapSve) != 0;
  f.i8mm = (hw2 & kHwcap2I8mm) != 0;
  f.bf16 = (hw2 & kHwcap2Bf16) != 0;
  name_from_midr(f);
#elif defined(__APPLE__)
  f.vendor = "Apple";
  char brand[128] = {};
  size_t n = sizeof brand - 1;
  if (sysctlbyname("machdep.cpu.brand_string", brand, &n, nullptr, 0) == 0) f.brand = brand;
  f.neon = true;  // every Apple arm64 core
  f.dotprod = sysctl_u64("hw.optional.arm.FEAT_DotProd") != 0;
  f.i8mm = sysctl_u64("hw.optional.arm.FEAT_I8MM") != 0;
  f.bf16 = sysctl_u64("hw.optional.arm.FEAT_BF16") != 0;
  f.fp16 = sysctl_u64("hw.optional.arm.FEAT_FP16") != 0;
  if (!caches_known) {  // the performance cores' (perflevel0)
    f.l1d_bytes = sysctl_u64("hw.perflevel0.l1dcachesize");
    f.l2_bytes = sysctl_u64("hw.perflevel0.l2cachesize");
    if (f.l1d_bytes == 0) f.l1d_bytes = sysctl_u64("hw.l1dcachesize");
    if (f.l2_bytes == 0) f.l2_bytes = sysctl_u64("hw.l2cachesize");
  }
#else
  f.neon = true;  // Advanced SIMD is part of the AArch64 base architecture
  f.vendor = "aarch64";
#endif
}

uint32_t physical_cores_hint() {
#if defined(__APPLE__)
  // The performance cores: the efficiency cores would only slow a parallel step down.
  if (uint64_t p = sysctl_u64("hw.perflevel0.physicalcpu")) return static_cast<uint32_t>(p);
  return static_cast<uint32_t>(sysctl_u64("hw.physicalcpu"));
#else
  return 0;
#endif
}

}  // namespace wafer::cpu_isa
#endif
