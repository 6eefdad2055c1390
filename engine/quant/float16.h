// IEEE half (f16) and bfloat16 (bf16) <-> f32 conversion, bit-exact with ggml: f32 -> f16
// and f32 -> bf16 round to nearest, ties to even; NaN stays NaN (bf16 NaNs are quieted).
// Used by the GGUF writer and as the scalar reference for kernels that read F16/BF16.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wafer {

float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);
float bf16_to_f32(uint16_t h);
uint16_t f32_to_bf16(float f);

void f32_to_f16_row(const float* x, uint16_t* y, size_t n);
void f32_to_bf16_row(const float* x, uint16_t* y, size_t n);
void f16_to_f32_row(const uint16_t* x, float* y, size_t n);
void bf16_to_f32_row(const uint16_t* x, float* y, size_t n);

}  // namespace wafer
