// macOS: C++20 atomic wait (libc++ uses the OS's wait-on-address), no thread affinity, no
// transparent huge pages, no sysfs (topology and caches come from sysctl in
// cpu_features_arm.cpp, or from CPUID on x86).
#include <unistd.h>

#include "engine/runtime/platform.h"

namespace wafer::platform {

void wait_on(std::atomic<uint32_t>* word, uint32_t expected) { word->wait(expected, std::memory_order_seq_cst); }

void wake_all(std::atomic<uint32_t>* word) { word->notify_all(); }

void pin_current_thread(int) {}

std::vector<int> allowed_cpus() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  std::vector<int> cpus;
  for (int c = 0; c < (n > 0 ? n : 1); ++c) cpus.push_back(c);
  return cpus;
}

std::vector<int> one_cpu_per_core(const std::vector<int>& cpus) { return cpus; }

bool cache_sizes(uint64_t&, uint64_t&, uint64_t&) { return false; }

void advise_huge_pages(void*, size_t) {}

const char* huge_pages_text() { return "normal pages (the OS has no huge-page advice)"; }

bool request_amx_state() { return false; }

}  // namespace wafer::platform
