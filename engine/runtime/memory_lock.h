// Keeping memory in RAM: mlock over a set of byte ranges, with an error that says what to
// change when the system refuses (RLIMIT_MEMLOCK for unprivileged processes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "engine/base/result.h"

namespace wafer {

struct ByteRange {
  const void* data;
  size_t bytes;
};

// Locks every range (pages shared by several ranges count once); returns the bytes of the
// pages locked. On failure nothing stays locked and the error names the limit in force.
Result<uint64_t> lock_in_ram(std::span<const ByteRange> ranges);

}  // namespace wafer
