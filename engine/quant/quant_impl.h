// Internal to the quant*.cpp files: the per-type scalar routines behind the table in
// quant.cpp. Other code goes through quant.h (dequantize_row, vec_dot_fn, ...).
#pragma once

#include <cstdint>

#include "engine/quant/quant.h"

namespace wafer::quant {

// n is a whole number of blocks (checked by the caller).
void dequantize_f32(const void* src, float* dst, int64_t n);
void dequantize_f16(const void* src, float* dst, int64_t n);
void dequantize_bf16(const void* src, float* dst, int64_t n);
void dequantize_q4_0(const void* src, float* dst, int64_t n);
void dequantize_q4_1(const void* src, float* dst, int64_t n);
void dequantize_q5_0(const void* src, float* dst, int64_t n);
void dequantize_q5_1(const void* src, float* dst, int64_t n);
void dequantize_q8_0(const void* src, float* dst, int64_t n);
void dequantize_q4_k(const void* src, float* dst, int64_t n);
void dequantize_q5_k(const void* src, float* dst, int64_t n);
void dequantize_q6_k(const void* src, float* dst, int64_t n);

float vec_dot_f32(int64_t n, const void* w, const void* a);
float vec_dot_f16(int64_t n, const void* w, const void* a);
float vec_dot_bf16(int64_t n, const void* w, const void* a);
float vec_dot_q4_0_q8_0(int64_t n, const void* w, const void* a);
float vec_dot_q4_1_q8_1(int64_t n, const void* w, const void* a);
float vec_dot_q5_0_q8_0(int64_t n, const void* w, const void* a);
float vec_dot_q5_1_q8_1(int64_t n, const void* w, const void* a);
float vec_dot_q8_0_q8_0(int64_t n, const void* w, const void* a);
float vec_dot_q4_k_q8_k(int64_t n, const void* w, const void* a);
float vec_dot_q5_k_q8_k(int64_t n, const void* w, const void* a);
float vec_dot_q6_k_q8_k(int64_t n, const void* w, const void* a);

// f16 -> f32 for every half value (256 KiB, built on first use): the scalar F16 paths look
// values up instead of decoding them bit by bit.
const float* f16_table();
inline float f16_lookup(uint16_t h) { return f16_table()[h]; }
// bf16 -> f32 is a shift; inline here so the dot-product loops can vectorize.
inline float bf16_value(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
}

// The 5-bit value of element j (0..31) of a Q5_0/Q5_1 block, before the offset.
inline int q5_value(const uint8_t* qs, uint32_t qh, int j) {
  int low = j < 16 ? (qs[j] & 0xf) : (qs[j - 16] >> 4);
  return low | static_cast<int>(((qh >> j) & 1) << 4);
}

// The 6-bit value (0..63, before the -32 offset) of element i (0..255) of a Q6_K block.
inline int q6_value(const BlockQ6_K& b, int i) {
  int half = i / 128, r = i % 128, quarter = r / 32, l = r % 32;
  const uint8_t* ql = b.ql + 64 * half;
  const uint8_t* qh = b.qh + 32 * half;
  uint8_t byte = ql[l + 32 * (quarter & 1)];
  int low = (quarter >> 1) ? (byte >> 4) : (byte & 0xf);
  int high = (qh[l] >> (2 * quarter)) & 3;
  return low | (high << 4);
}

// The 4-bit (Q4_K) or 5-bit (Q5_K, with qh) value of element i (0..255) of a K block.
inline int qk_value(const uint8_t* qs, const uint8_t* qh, int i) {
  int group = i / 64, r = i % 64, l = r % 32;
  bool high_nibble = r >= 32;
  int v = high_nibble ? (qs[32 * group + l] >> 4) : (qs[32 * group + l] & 0xf);
  if (qh) v |= ((qh[l] >> (2 * group + (high_nibble ? 1 : 0))) & 1) << 4;
  return v;
}

}  // namespace wafer::quant
