// Quantized block formats of GGUF/ggml tensors and their scalar reference arithmetic:
// dequantization of weight rows, quantization of activations (the way llama.cpp's CPU
// backend does it before a matmul), and dot products of a weight row with a quantized
// activation row. Every SIMD kernel added later is tested against these functions.
//
// Why activations are quantized at all: ggml-cpu never multiplies a quantized weight by a
// float activation. It first converts the activation row to the weight type's "vec_dot
// type" (Q8_0 for Q4_0/Q5_0/Q8_0, Q8_1 for Q4_1/Q5_1, Q8_K for the K-quants, F16 for F16,
// BF16 for BF16) and then takes an integer (or half-precision) dot product. Matching
// llama.cpp's logits to ~1e-5 therefore requires doing exactly the same rounding.
//
// The structs below are the on-disk layouts, byte for byte (little-endian, no padding);
// halves are stored as raw IEEE binary16 bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/quant/float16.h"
#include "engine/quant/tensor_types.h"

namespace wafer::quant {

inline constexpr int kQK = 32;     // elements per block of the legacy formats
inline constexpr int kQK_K = 256;  // elements per super-block of the K-quants
inline constexpr int kKScaleBytes = 12;  // packed 6-bit scales/mins of Q4_K and Q5_K

// Q4_0: x = d * (q - 8), q in [0, 15]. Byte j holds element j in its low nibble and element
// j + 16 in its high nibble (so the two halves of the block unpack with one shift each).
struct BlockQ4_0 {
  uint16_t d;
  uint8_t qs[kQK / 2];
};

// Q4_1: x = d * q + m, q in [0, 15]; nibble order as Q4_0. The offset m lets a block that
// is all positive use the whole 4-bit range.
struct BlockQ4_1 {
  uint16_t d;
  uint16_t m;
  uint8_t qs[kQK / 2];
};

// Q5_0: x = d * (q - 16), q in [0, 31]: the low 4 bits as in Q4_0, the fifth bit of element
// j is bit j of the little-endian 32-bit word qh.
struct BlockQ5_0 {
  uint16_t d;
  uint8_t qh[4];
  uint8_t qs[kQK / 2];
};

// Q5_1: x = d * q + m, q in [0, 31]; bits as in Q5_0.
struct BlockQ5_1 {
  uint16_t d;
  uint16_t m;
  uint8_t qh[4];
  uint8_t qs[kQK / 2];
};

// Q8_0: x = d * q, q in [-127, 127]. The activation format for Q4_0/Q5_0/Q8_0 weights.
struct BlockQ8_0 {
  uint16_t d;
  int8_t qs[kQK];
};

// Q8_1: Q8_0 plus s = d * sum(q) (as a half), so a dot product with an offset format
// (Q4_1, Q5_1) can add m * s once per block instead of m * x per element.
struct BlockQ8_1 {
  uint16_t d;
  uint16_t s;
  int8_t qs[kQK];
};

// Q4_K: 256 elements in 8 sub-blocks of 32; x = d * sc[j] * q - dmin * m[j] with 6-bit
// sub-block scales sc and mins m packed into 12 bytes (see unpack_k_scale) and 4-bit q.
// Nibble layout: each 64-element group uses 32 bytes, low nibbles first 32 elements, high
// nibbles the next 32.
struct BlockQ4_K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[kKScaleBytes];
  uint8_t qs[kQK_K / 2];
};

// Q5_K: Q4_K with a fifth bit per element: in 64-element group g, bit 2g of qh[l] is the high
// bit of the low-nibble element l and bit 2g+1 that of the high-nibble element l.
struct BlockQ5_K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[kKScaleBytes];
  uint8_t qh[kQK_K / 8];
  uint8_t qs[kQK_K / 2];
};

// Q6_K: 256 elements in 16 sub-blocks of 16; x = d * sc[j] * (q - 32) with 6-bit q and
// signed 8-bit sub-block scales sc. Each 128-element half uses 64 bytes of ql (low 4 bits)
// and 32 bytes of qh (high 2 bits): for l < 32, elements l, l+32, l+64, l+96 take the low
// nibble of ql[l], the low nibble of ql[l+32], the high nibble of ql[l], the high nibble of
// ql[l+32], and bits 0-1, 2-3, 4-5, 6-7 of qh[l].
struct BlockQ6_K {
  uint8_t ql[kQK_K / 2];
  uint8_t qh[kQK_K / 4];
  int8_t scales[kQK_K / 16];
  uint16_t d;
};

// Q8_K: the activation format for K-quant weights. A float scale (not a half: K-quant
// super-blocks are long, so the extra precision is cheap) and the sums of each 16 q, which
// let the K-quant dot products subtract the mins without touching every element.
struct BlockQ8_K {
  float d;
  int8_t qs[kQK_K];
  int16_t bsums[kQK_K / 16];
};

static_assert(sizeof(BlockQ4_0) == 18 && sizeof(BlockQ4_1) == 20);
static_assert(sizeof(BlockQ5_0) == 22 && sizeof(BlockQ5_1) == 24);
static_assert(sizeof(BlockQ8_0) == 34 && sizeof(BlockQ8_1) == 36);
static_assert(sizeof(BlockQ4_K) == 144 && sizeof(BlockQ5_K) == 176);
static_assert(sizeof(BlockQ6_K) == 210 && sizeof(BlockQ8_K) == 292);

// Sub-block j (0..7) of a Q4_K/Q5_K scales array: its 6-bit scale and 6-bit min.
// Bytes 0-3 hold scales 0-3 (low 6 bits), bytes 4-7 mins 0-3; scales/mins 4-7 are split
// into a low nibble in bytes 8-11 and their top two bits in the spare bits of bytes 0-7.
void unpack_k_scale(int j, const uint8_t* scales, uint8_t* scale, uint8_t* min);

// ---- weights -----------------------------------------------------------------------------

// Whether wafer can compute with weights of this type (dequantize and dot product).
bool is_supported_weight_type(TensorType type);

// Dequantizes n elements (a multiple of the type's block size) of `src` into `dst`.
// Returns false for an unsupported type or an n that is not a whole number of blocks.
bool dequantize_row(TensorType type, const void* src, float* dst, int64_t n);

// ---- activations -------------------------------------------------------------------------

// The format llama.cpp converts matmul activations to for a weight type (see the top of
// this file). F32 weights take F32 activations unchanged.
TensorType vec_dot_type(TensorType weight_type);

// Converts n floats to `type` (F32, F16, BF16, Q8_0, Q8_1 or Q8_K) exactly the way
// ggml-cpu's x86 build does: Q8_0/Q8_1 scale d = amax / 127 stored as a half and
// q = round-half-even(x * (127 / amax)); Q8_K d = max / -127 with max the signed element
// of largest magnitude, q = round-half-even(x * (-127 / max)) clamped to 127.
// `dst` must hold row_bytes(type, n) bytes. Returns false for another type.
bool quantize_activations(TensorType type, const float* src, void* dst, int64_t n);

void quantize_row_q8_0(const float* x, BlockQ8_0* y, int64_t n);
void quantize_row_q8_1(const float* x, BlockQ8_1* y, int64_t n);
void quantize_row_q8_K(const float* x, BlockQ8_K* y, int64_t n);

// ---- dot products ------------------------------------------------------------------------

// Dot product of n elements of a weight row (type `weight_type`) with an activation row
// already converted to vec_dot_type(weight_type). Scalar reference implementations.
using VecDotFn = float (*)(int64_t n, const void* weight, const void* act);
// The dot product for a weight type, or nullptr when unsupported.
VecDotFn vec_dot_fn(TensorType weight_type);

}  // namespace wafer::quant
