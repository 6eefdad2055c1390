// The check the AMX kernels pass before the engine uses them (simd_kernels.cpp,
// amx_state): on this CPU, a tile matmul over small random Q8_0, Q4_0 and Q5_0 matrices
// (several panels, an odd number of blocks, a batch that is not a whole number of tiles)
// must give exactly the bits the AVX-512 VNNI kernel gives. The tile kernels were written
// and tested against a software model of the instructions (kernels/amx/tile_model.h); this
// catches a machine where the real instructions disagree with it, before any output does.
#pragma once

#include "engine/kernels/dispatch.h"

namespace wafer {

// Runs on the calling thread. True when `amx` and `vnni` agree bit for bit.
bool amx_agrees(PackedMatmulFn amx, PackedMatmulFn vnni);

// The same matrices through the BF16 tile kernel, whose results are not the integer
// kernels' bits (amx_bf16_kernels.h): true when every output is within 2^-7 x sum |w x a|
// of vnni's (40 rows, 96 columns, 37 tokens: both token-tile pairings and a partial panel).
bool amx_bf16_close(PackedMatmulFn bf16, PackedMatmulFn vnni);

// Attention on the BF16 tiles (F16 keys and values, 64 dimensions, 100 positions, 37
// queries with their own causal limits) against the same attention in double precision:
// true when every output is within 1e-5 x sum_p w_p |v_p| (+ 1e-6) of it, and each query's
// result has the same bits computed alone as in the batch.
bool amx_attend_close(AttendF16Fn tiles);

}  // namespace wafer
