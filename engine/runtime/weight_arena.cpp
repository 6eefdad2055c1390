#include "engine/runtime/weight_arena.h"

#include "engine/runtime/huge_pages.h"

namespace wafer {
namespace {

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

Result<std::shared_ptr<uint8_t>> WeightArena::allocate(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  bytes = round_up(bytes == 0 ? 1 : bytes, 64);
  if (bytes > chunk_bytes_ / 4) {  // big matrices get a mapping of their own
    size_t n = round_up(bytes, kHugePage);
    auto chunk = map_huge(n);
    if (!chunk) return make_error("weight arena: cannot map " + std::to_string(n >> 20) + " MiB");
    mapped_ += n;
    return chunk;
  }
  if (!chunk_ || capacity_ - used_ < bytes) {
    auto chunk = map_huge(chunk_bytes_);
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
