// The few operating-system and CPU services the runtime needs that differ between
// platforms, each with a plain fallback (platform.cpp is the only file with #ifdefs for
// them): sleeping on and waking a 32-bit word (a futex on Linux, std::atomic wait/notify
// elsewhere), the spin-loop hint, pinning a thread to a CPU, transparent huge-page advice,
// and the x86 AMX permission request.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <pthread.h>

namespace wafer::platform {

// Sleeps while *word == expected (may return early: callers re-check).
void wait_on(std::atomic<uint32_t>* word, uint32_t expected);
// Wakes every thread sleeping in wait_on(word, ...).
void wake_all(std::atomic<uint32_t>* word);

// The processor's spin-wait hint (x86 PAUSE, Arm YIELD).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#endif
}

// Best effort (Linux only): a refusal or another OS only costs locality.
void pin_thread(pthread_t thread, int cpu);

// Asks for transparent huge pages over [p, p + bytes) (Linux MADV_HUGEPAGE; elsewhere
// nothing). Advice only.
void advise_huge_pages(void* p, size_t bytes);

// Linux/x86-64: asks for the AMX tile data state (arch_prctl ARCH_REQ_XCOMP_PERM); false
// when refused or on any other platform.
bool request_amx_state();

}  // namespace wafer::platform
