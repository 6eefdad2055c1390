// Linux: futex sleeps, thread affinity, topology and caches from sysfs, transparent huge
// pages, the AMX permission request.
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <fstream>
#include <set>

#include "engine/runtime/platform.h"

namespace wafer::platform {
namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// "32K", "1024K", "32M" (sysfs cache size) -> bytes.
uint64_t parse_size(const std::string& s) {
  uint64_t v = 0;
  size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') v = v * 10 + static_cast<uint64_t>(s[i++] - '0');
  if (i < s.size() && (s[i] == 'K' || s[i] == 'k')) v <<= 10;
  if (i < s.size() && (s[i] == 'M' || s[i] == 'm')) v <<= 20;
  return v;
}

}  // namespace

void wait_on(std::atomic<uint32_t>* word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

void wake_all(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

void pin_current_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  if (cpus.empty()) {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (int c = 0; c < (n > 0 ? n : 1); ++c) cpus.push_back(c);
  }
  return cpus;
}

std::vector<int> one_cpu_per_core(const std::vector<int>& cpus) {
  // SMT siblings share a thread_siblings_list; without it every CPU counts as a core.
  std::vector<int> cores;
  std::set<std::string> seen;
  for (int c : cpus) {
    std::string sib = read_line("/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/thread_siblings_list");
    if (sib.empty()) sib = std::to_string(c);
    if (seen.insert(sib).second) cores.push_back(c);
  }
  return cores;
}

bool cache_sizes(uint64_t& l1d, uint64_t& l2, uint64_t& l3) {
  // Not always exposed in VMs.
  bool any = false;
  for (int idx = 0; idx < 8; ++idx) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(idx) + "/";
    const std::string level = read_line(dir + "level");
    if (level.empty()) break;
    const std::string type = read_line(dir + "type");
    const uint64_t size = parse_size(read_line(dir + "size"));
    any = true;
    if (level == "1" && type == "Data") l1d = size;
    if (level == "2") l2 = size;
    if (level == "3") l3 = size;
  }
  return any && l2 != 0;
}

void advise_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] size_t bytes) {
#if defined(MADV_HUGEPAGE)
  madvise(p, bytes, MADV_HUGEPAGE);
#endif
}

const char* huge_pages_text() { return "transparent huge pages asked for (madvise), granted as the kernel's THP setting allows"; }

bool request_amx_state() {
#if defined(__x86_64__)
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
  return false;
#endif
}

}  // namespace wafer::platform
