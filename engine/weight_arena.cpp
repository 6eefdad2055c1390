#include "engine/weight_arena.h"

#include <sys/mman.h>

namespace wafer {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// A 2 MiB-aligned anonymous mapping of n bytes (n a multiple of 2 MiB), unmapped by the
// returned pointer's deleter.
std::shared_ptr<uint8_t> map_chunk(size_t n) {
  // Over-map by one huge page and trim, so the start is 2 MiB aligned.
  void* raw = mmap(nullptr, n + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  auto base = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = round_up(base, kHugePage);
  if (aligned > base) munmap(raw, aligned - base);
  size_t tail = base + n + kHugePage - (aligned + n);
  if (tail) munmap(reinterpret_cast<void*>(aligned + n), tail);
  auto* p = reinterpret_cast<uint8_t*>(aligned);
  madvise(p, n, MADV_HUGEPAGE);  // advice: ignored where THP is off
  return std::shared_ptr<uint8_t>(p, [n](uint8_t* q) { munmap(q, n); });
}

}  // namespace

Result<std::shared_ptr<uint8_t>> WeightArena::allocate(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  bytes = round_up(bytes == 0 ? 1 : bytes, 64);
  if (bytes > chunk_bytes_ / 4) {  // big matrices get a mapping of their own
    size_t n = round_up(bytes, kHugePage);
    auto chunk = map_chunk(n);
    if (!chunk) return make_error("weight arena: cannot map " + std::to_string(n >> 20) + " MiB");
    mapped_ += n;
    return chunk;
  }
  if (!chunk_ || capacity_ - used_ < bytes) {
    auto chunk = map_chunk(chunk_bytes_);
    if (!chunk) return make_error("weight arena: cannot map " + std::to_string(chunk_bytes_ >> 20) + " MiB");
    mapped_ += chunk_bytes_;
    chunk_ = std::move(chunk);
    used_ = 0;
    capacity_ = chunk_bytes_;
  }
  std::shared_ptr<uint8_t> piece(chunk_, chunk_.get() + used_);  // shares the chunk's lifetime
  used_ += bytes;
  return piece;
}

}  // namespace wafer
