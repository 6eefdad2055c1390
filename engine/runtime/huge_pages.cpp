#include "engine/runtime/huge_pages.h"

#include <cstdint>

#include "engine/runtime/platform.h"

namespace wafer {
namespace {

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

void* map_huge_raw(size_t bytes) {
  const size_t n = round_up(bytes == 0 ? 1 : bytes, kHugePage);
  void* p = platform::map_pages(n, kHugePage);
  if (p) platform::advise_huge_pages(p, n);  // advice: ignored where the OS does not take it
  return p;
}

void unmap_huge(void* p, size_t bytes) {
  if (p) platform::unmap_pages(p, round_up(bytes == 0 ? 1 : bytes, kHugePage));
}

std::shared_ptr<uint8_t> map_huge(size_t bytes) {
  void* p = map_huge_raw(bytes);
  if (!p) return nullptr;
  return std::shared_ptr<uint8_t>(static_cast<uint8_t*>(p), [bytes](uint8_t* q) { unmap_huge(q, bytes); });
}

}  // namespace wafer
