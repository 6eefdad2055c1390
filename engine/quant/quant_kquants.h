// Simple quantizers from float to Q5_0, Q4_K and Q6_K, so the GGUF writer can make
// Q4_K_M-style synthetic models (benchmarks, tests). They produce valid blocks with a
// plain min/max fit per (sub-)block; unlike llama-quantize they do not search for the
// scales that minimize the error, so the bytes differ from llama.cpp's for the same
// floats. Nothing at inference time depends on them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wafer {

// n must be a multiple of 32 (Q5_0) or 256 (Q4_K, Q6_K); `out` receives the blocks.
void quantize_row_q5_0_simple(const float* x, uint8_t* out, size_t n);
void quantize_row_q4_k_simple(const float* x, uint8_t* out, size_t n);
void quantize_row_q6_k_simple(const float* x, uint8_t* out, size_t n);

}  // namespace wafer
