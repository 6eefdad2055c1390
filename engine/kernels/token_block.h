// Tokens per block of a prefill matmul: the loops take one block of tokens through every
// weight panel of the thread's rows, then the next block, so the block's activations stay
// in L2 while the panels stream past (sweeping all the tokens per panel re-read a long
// prefill's activations, 2.6 MB for 512 tokens of a 4,864-wide row, from L3 once per 16
// rows). The weights are then what is read again, once per block; the arithmetic of each
// output is the same either way (bit for bit).
//
// The block is sized by this CPU's L2: a block too small for it makes every thread stream
// its weights once per block, and two threads doing that at once share the bandwidth.
#pragma once

#include <cstdint>

namespace wafer {

// Activation bytes of one block: half of this CPU's L2 per core, within 192 KB..1 MB
// (192 KB where the size is unknown).
int64_t prefill_block_act_bytes();

// As many whole tiles of `tile` tokens as fit in prefill_block_act_bytes() (at least one).
// Out of line: the kernels that call it are compiled with different -m flags.
int prefill_token_block(int64_t bytes_per_token, int tile);

// The AMX kernels' budget for one group of unpacked weight panels, which stays in L2 while
// the token tiles pass (every CPU with AMX has 2 MB of L2 per core).
inline constexpr int64_t kAmxGroupBytes = 384 * 1024;

}  // namespace wafer
