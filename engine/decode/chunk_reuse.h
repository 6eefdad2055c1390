// Chunk reuse between keystrokes: which spans of a new prompt are already in a session's KV
// cache at other positions, so their keys and values can be moved instead of recomputed.
//
// A fill-in-the-middle prompt is prefix + suffix + markers. Typing a character changes the
// end of the prefix, which shifts the whole suffix by a token or two: the longest common
// prefix then ends at the cursor and the suffix (often hundreds of tokens) would be
// prefilled again on every keystroke. The suffix is still in the cache, at its old
// positions; moving its entries and re-rotating their keys (RoPE is a rotation by the
// position, so a shift by d is one more rotation by d) costs a copy instead of a forward
// pass. The moved entries were computed with the old text before them, so this is an
// approximation (as llama.cpp's --cache-reuse is): bench/latency --check-exact measures how
// often the output changes, bench_quality --typed how often the suggestion does and what
// that costs. The engine's default is off (EngineOptions); the daemon's is on.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace wafer {

struct ReusedChunk {
  int prompt_pos = 0;  // where the chunk goes in the new prompt
  int cache_pos = 0;   // where its tokens are in the cache now
  int n = 0;           // length in tokens
};

// Chunks of at least min_chunk tokens, in increasing prompt and cache order, that the new
// prompt can take from the cached tokens beyond their common prefix `common`. The last
// prompt token is never part of a chunk (it is evaluated for fresh logits). Greedy: at each
// prompt position the longest match further on in the cache; work is bounded (a long
// prompt with no match costs at most a few million token comparisons).
std::vector<ReusedChunk> plan_chunk_reuse(std::span<const int32_t> cached, std::span<const int32_t> prompt,
                                          int common, int min_chunk);

}  // namespace wafer
