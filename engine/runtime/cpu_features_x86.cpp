// CPU feature detection on x86-64: CPUID, with XGETBV for the register states the OS saves.
#if defined(__x86_64__)
#include <cpuid.h>

#include <cstring>
#include <string>

#include "engine/runtime/cpu_features_isa.h"

namespace wafer::cpu_isa {
namespace {

struct Regs {
  uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Regs cpuid(uint32_t leaf, uint32_t subleaf = 0) {
  Regs r;
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}

bool bit(uint32_t word, int n) { return (word >> n) & 1u; }

// XCR0: which register states the OS saves on context switch. Without it a CPU feature
// is unusable even when CPUID reports it.
uint64_t read_xcr0() {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

// Deterministic cache parameters: Intel leaf 4, AMD leaf 0x8000001D (same encoding).
void caches_from_cpuid(CpuFeatures& f, bool amd) {
  uint32_t leaf = amd ? 0x8000001Du : 4u;
  if (amd && cpuid(0x80000000u).eax < leaf) return;
  if (!amd && cpuid(0).eax < leaf) return;
  for (uint32_t sub = 0; sub < 16; ++sub) {
    Regs r = cpuid(leaf, sub);
    uint32_t type = r.eax & 0x1f;  // 1 data, 2 instruction, 3 unified
    if (type == 0) break;
    uint32_t level = (r.eax >> 5) & 0x7;
    uint64_t ways = ((r.ebx >> 22) & 0x3ff) + 1;
    uint64_t parts = ((r.ebx >> 12) & 0x3ff) + 1;
    uint64_t line = (r.ebx & 0xfff) + 1;
    uint64_t sets = static_cast<uint64_t>(r.ecx) + 1;
    uint64_t size = ways * parts * line * sets;
    if (level == 1 && type == 1) f.l1d_bytes = size;
    if (level == 2 && type != 2) f.l2_bytes = size;
    if (level == 3 && type != 2) {
      f.l3_bytes = size;
      f.l3_sharing = ((r.eax >> 14) & 0xfff) + 1;
    }
  }
}

// AMD's older cache leaves, which some hypervisors fill when they leave 0x8000001D empty:
// L1d KiB in 0x80000005 ecx[31:24], L2 KiB in 0x80000006 ecx[31:16], L3 in 512 KiB
// units in 0x80000006 edx[31:18].
void caches_from_amd_legacy(CpuFeatures& f) {
  if (cpuid(0x80000000u).eax < 0x80000006u) return;
  f.l1d_bytes = static_cast<uint64_t>(cpuid(0x80000005u).ecx >> 24) << 10;
  Regs r6 = cpuid(0x80000006u);
  f.l2_bytes = static_cast<uint64_t>(r6.ecx >> 16) << 10;
  f.l3_bytes = static_cast<uint64_t>(r6.edx >> 18) << 19;
}

}  // namespace

void detect(CpuFeatures& f, bool caches_known) {
  Regs r0 = cpuid(0);
  char vendor[13] = {};
  std::memcpy(vendor + 0, &r0.ebx, 4);
  std::memcpy(vendor + 4, &r0.edx, 4);
  std::memcpy(vendor + 8, &r0.ecx, 4);
  f.vendor = vendor;
  bool amd = f.vendor == "AuthenticAMD" || f.vendor == "HygonGenuine";

  if (cpuid(0x80000000u).eax >= 0x80000004u) {
    char brand[49] = {};
    for (uint32_t i = 0; i < 3; ++i) {
      Regs r = cpuid(0x80000002u + i);
      std::memcpy(brand + 16 * i + 0, &r.eax, 4);
      std::memcpy(brand + 16 * i + 4, &r.ebx, 4);
      std::memcpy(brand + 16 * i + 8, &r.ecx, 4);
      std::memcpy(brand + 16 * i + 12, &r.edx, 4);
    }
    std::string b = brand;
    b.erase(0, b.find_first_not_of(' '));
    b.erase(b.find_last_not_of(' ') + 1);
    f.brand = b;
  }

  uint32_t max_leaf = r0.eax;
  Regs r1 = max_leaf >= 1 ? cpuid(1) : Regs{};
  bool osxsave = bit(r1.ecx, 27);
  uint64_t xcr0 = osxsave ? read_xcr0() : 0;
  bool ymm_ok = (xcr0 & 0x6) == 0x6;             // SSE + AVX state
  bool zmm_ok = ymm_ok && (xcr0 & 0xe0) == 0xe0;  // opmask + upper zmm + hi16 zmm
  bool tile_ok = (xcr0 & 0x60000) == 0x60000;     // XTILECFG + XTILEDATA

  f.fma = ymm_ok && bit(r1.ecx, 12);
  f.f16c = ymm_ok && bit(r1.ecx, 29);
  if (max_leaf >= 7) {
    Regs r7 = cpuid(7, 0);
    f.avx2 = ymm_ok && bit(r7.ebx, 5);
    f.avx512f = zmm_ok && bit(r7.ebx, 16);
    f.avx512bw = zmm_ok && bit(r7.ebx, 30);
    f.avx512vl = zmm_ok && bit(r7.ebx, 31);
    f.avx512vnni = zmm_ok && bit(r7.ecx, 11);
    f.amx_tile = tile_ok && bit(r7.edx, 24);
    f.amx_int8 = tile_ok && bit(r7.edx, 25);
    f.amx_bf16 = tile_ok && bit(r7.edx, 22);
    Regs r71 = cpuid(7, 1);
    f.avx_vnni = ymm_ok && bit(r71.eax, 4);
    f.avx512bf16 = zmm_ok && bit(r71.eax, 5);
  }

  if (!caches_known) caches_from_cpuid(f, amd);
  if (amd && f.l2_bytes == 0) caches_from_amd_legacy(f);
  if (f.l3_sharing == 0 && f.l3_bytes != 0) {
    CpuFeatures tmp;
    caches_from_cpuid(tmp, amd);
    f.l3_sharing = tmp.l3_sharing;
  }
}

uint32_t physical_cores_hint() { return 0; }


}  // namespace wafer::cpu_isa
#endif
