// Memory for repacked weights: large anonymous mappings, 2 MiB aligned and advised for
// transparent huge pages (a 0.5B model then needs a few hundred TLB entries instead of
// ~100k), handed out in 64-byte-aligned pieces. A piece keeps its chunk alive, so the
// memory goes back to the OS when the last matrix of a model is dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "engine/base/result.h"

namespace wafer {

class WeightArena {
 public:
  explicit WeightArena(size_t chunk_bytes = size_t{64} << 20) : chunk_bytes_(chunk_bytes) {}

  // A zero-filled piece of `bytes` bytes (64-byte aligned), or an error when the OS has
  // no memory for it. Thread-safe (it is used at load time only).
  Result<std::shared_ptr<uint8_t>> allocate(size_t bytes);

  // Bytes mapped so far by this arena (including chunks already released).
  size_t mapped_bytes() const { return mapped_; }

 private:
  std::mutex mu_;
  size_t chunk_bytes_;
  std::shared_ptr<uint8_t> chunk_;  // the chunk pieces are currently cut from
  size_t used_ = 0, capacity_ = 0;
  size_t mapped_ = 0;
};

}  // namespace wafer
