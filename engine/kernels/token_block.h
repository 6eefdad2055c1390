// Tokens per block of a prefill matmul: the loops take one block of tokens through every
// weight panel of the thread's rows, then the next block, so the block's activations stay
// in L2 while the panels stream past (sweeping all the tokens per panel re-read a long
// prefill's activations, 2.6 MB for 512 tokens of a 4,864-wide row, from L3 once per 16
// rows). The weights are then what is read again, once per block; the arithmetic of each
// output is the same either way (bit for bit).
#pragma once

#include <cstdint>

namespace wafer {

// Activation bytes of one block: well inside the 512 KB-2 MB L2 of current x86 and Arm cores.
inline constexpr int64_t kPrefillBlockActBytes = 192 * 1024;

// As many whole tiles of `tile` tokens as fit in kPrefillBlockActBytes (at least one).
constexpr int prefill_token_block(int64_t bytes_per_token, int tile) {
  const int64_t tiles = bytes_per_token > 0 ? kPrefillBlockActBytes / (bytes_per_token * tile) : 1;
  return static_cast<int>(tiles < 1 ? tile : tiles * tile);
}

}  // namespace wafer
