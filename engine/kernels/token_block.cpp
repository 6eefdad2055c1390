#include "engine/kernels/token_block.h"

#include <algorithm>

#include "engine/runtime/cpu_features.h"

namespace wafer {

int64_t prefill_block_act_bytes() {
  static const int64_t bytes = [] {
    constexpr int64_t kLeast = 192 * 1024, kMost = 1024 * 1024;
    const int64_t half_l2 = static_cast<int64_t>(cpu_features().l2_bytes / 2);
    return half_l2 <= 0 ? kLeast : std::clamp(half_l2, kLeast, kMost);
  }();
  return bytes;
}

int prefill_token_block(int64_t bytes_per_token, int tile) {
  const int64_t tiles = bytes_per_token > 0 ? prefill_block_act_bytes() / (bytes_per_token * tile) : 1;
  return static_cast<int>(tiles < 1 ? tile : tiles * tile);
}

}  // namespace wafer
