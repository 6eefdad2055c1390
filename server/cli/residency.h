// What `wafer info --residency MODEL` reports: how many bytes of weights one decoded token
// reads, how that compares with this machine's caches (per thread, with the fixed row
// slices of the thread pool), the read bandwidth measured now on the pool's threads, and
// the decode speed those imply (bandwidth / bytes per token: the ceiling, since decode
// reads every weight once per token); and what the KV cache adds: its bytes per token of
// context for each element type, which attention reads again for every decoded token.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/gguf/gguf.h"
#include "engine/base/result.h"

namespace wafer {

struct Residency {
  uint64_t weight_bytes_per_token = 0;  // layer matrices + output (token_embd when tied)
  uint64_t matrices = 0;
  int threads = 0;
  uint64_t bytes_per_thread = 0;        // each thread's fixed slice
  uint64_t l1d_bytes = 0, l2_bytes = 0, l3_bytes = 0;
  std::string kernels;                  // the backend CPUID chose ("avx512-vnni", "avx2-vnni", ...)
  std::string amx;                      // to_string(amx_state()): "in use", "not on this CPU", or why not
  std::string pages;                    // the large buffers' pages: huge ones where the OS gives them
  std::string attention_tiles;          // to_string(attend_tiles_state()): prefill attention on the BF16 tiles
  double read_gbs = 0;                  // median of the measured passes
  double ceiling_tok_s = 0;             // read_gbs * 1e9 / weight_bytes_per_token
  double cached_fraction = 0;           // share of the per-thread bytes that fit its L2
  // KV cache bytes per token of context (KvCache::bytes_per_token), 0 when the model's
  // shape cannot be read; q8_0 is 0 when its key head size is not a multiple of 32.
  double kv_f16_bytes = 0, kv_q8_0_bytes = 0, kv_f32_bytes = 0;
  static constexpr int kDepth = 1500;   // the context the ceiling below is given at
  double ceiling_at_depth_tok_s = 0;    // with an F16 cache kDepth tokens deep
};

// Measures bandwidth with `threads` pool threads (0: one per physical core).
Result<Residency> measure_residency(const GgufFile& file, int threads);

std::string residency_text(const Residency& r);
nlohmann::json residency_json(const Residency& r);

}  // namespace wafer
