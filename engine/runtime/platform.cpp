#include "engine/runtime/platform.h"

#include <sys/mman.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>

#include <climits>
#endif

namespace wafer::platform {

#if defined(__linux__)

void wait_on(std::atomic<uint32_t>* word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

void wake_all(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

void pin_thread(pthread_t thread, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(thread, sizeof(set), &set);
}

#else  // C++20 atomic wait/notify (on macOS the OS's own wait-on-address)

void wait_on(std::atomic<uint32_t>* word, uint32_t expected) { word->wait(expected, std::memory_order_seq_cst); }

void wake_all(std::atomic<uint32_t>* word) { word->notify_all(); }

void pin_thread(pthread_t, int) {}

#endif

void advise_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] size_t bytes) {
#if defined(MADV_HUGEPAGE)
  madvise(p, bytes, MADV_HUGEPAGE);
#endif
}

bool request_amx_state() {
#if defined(__linux__) && defined(__x86_64__)
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
  return false;
#endif
}

}  // namespace wafer::platform
