#include "engine/runtime/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

#include "engine/runtime/platform.h"

namespace wafer {
namespace {

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

void* map_huge_raw(size_t bytes) {
  const size_t n = round_up(bytes == 0 ? 1 : bytes, kHugePage);
  // Over-map by one huge page and trim, so the start is 2 MiB aligned.
  void* raw = mmap(nullptr, n + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto base = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = round_up(base, kHugePage);
  if (aligned > base) munmap(raw, aligned - base);
  const size_t tail = base + n + kHugePage - (aligned + n);
  if (tail) munmap(reinterpret_cast<void*>(aligned + n), tail);
  platform::advise_huge_pages(reinterpret_cast<void*>(aligned), n);  // advice: ignored where THP is off
  return reinterpret_cast<void*>(aligned);
}

void unmap_huge(void* p, size_t bytes) {
  if (p) munmap(p, round_up(bytes == 0 ? 1 : bytes, kHugePage));
}

std::shared_ptr<uint8_t> map_huge(size_t bytes) {
  void* p = map_huge_raw(bytes);
  if (!p) return nullptr;
  return std::shared_ptr<uint8_t>(static_cast<uint8_t*>(p), [bytes](uint8_t* q) { unmap_huge(q, bytes); });
}

}  // namespace wafer
