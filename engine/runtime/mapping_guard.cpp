#include "engine/runtime/mapping_guard.h"

#include <atomic>
#include <mutex>

#include "engine/runtime/platform.h"

namespace wafer {
namespace {

constexpr int kSlots = 32;
// A slot is free when begin == 0. The handler only reads; registration is serialised.
std::atomic<uintptr_t> g_begin[kSlots];
std::atomic<uintptr_t> g_end[kSlots];
std::atomic<uint64_t> g_faults{0};
std::mutex g_mu;
bool g_installed = false;

bool on_fault(uintptr_t at) {
  for (int i = 0; i < kSlots; ++i) {
    uintptr_t b = g_begin[i].load(std::memory_order_acquire);
    uintptr_t e = g_end[i].load(std::memory_order_acquire);
    if (b == 0 || at < b || at >= e) continue;
    // Zero pages over the whole mapping, at the same address: the read is retried and
    // succeeds.
    if (!platform::replace_with_zero_pages(b, e - b)) return false;
    g_faults.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  return false;  // not ours: the fault takes its default course
}

}  // namespace

void guard_mapping(const void* addr, size_t len) {
  if (!addr || len == 0) return;
  std::lock_guard lock(g_mu);
  if (!g_installed) {
    platform::install_mapping_fault_handler(on_fault);
    g_installed = true;
  }
  auto b = reinterpret_cast<uintptr_t>(addr);
  for (int i = 0; i < kSlots; ++i) {
    if (g_begin[i].load(std::memory_order_relaxed) != 0) continue;
    g_end[i].store(b + len, std::memory_order_release);
    g_begin[i].store(b, std::memory_order_release);
    return;
  }
}

void unguard_mapping(const void* addr) {
  std::lock_guard lock(g_mu);
  auto b = reinterpret_cast<uintptr_t>(addr);
  for (int i = 0; i < kSlots; ++i)
    if (g_begin[i].load(std::memory_order_relaxed) == b) g_begin[i].store(0, std::memory_order_release);
}

uint64_t mapping_faults() { return g_faults.load(std::memory_order_relaxed); }

}  // namespace wafer
