// Quantization from float to the Q8_0 and Q4_0 block formats, bit-exact with ggml's
// reference quantize_row_q8_0_ref / quantize_row_q4_0_ref, so files wafer writes hold the
// same bytes llama-quantize would. Used by the GGUF writer (tests, tools) and to read a draft
// model's weights as Q4_0 (engine/model/requantize.h), not per token.
//
// Q8_0 block (34 bytes, 32 values): f16 d = max|x| / 127, then int8 q[i] = round(x[i] / d).
// Q4_0 block (18 bytes, 32 values): f16 d = m / -8 where m is the value of largest
// magnitude (sign kept), then 4-bit q[i] = min(15, trunc(x[i] / d + 8.5)); byte j holds
// value j in its low nibble and value j + 16 in its high nibble.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wafer {

inline constexpr size_t kQ8_0BlockBytes = 34;
inline constexpr size_t kQ4_0BlockBytes = 18;
inline constexpr size_t kQBlockElems = 32;

// n must be a multiple of 32; `out` receives n / 32 blocks.
void quantize_row_q8_0(const float* x, uint8_t* out, size_t n);
void quantize_row_q4_0(const float* x, uint8_t* out, size_t n);

}  // namespace wafer
