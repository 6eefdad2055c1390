// Half/bfloat16 conversion, the K-quant scale unpacking, and the per-type table that ties a
// weight type to its activation format, dequantizer and dot product.
#include "engine/quant.h"

#include <cstring>

#include "engine/quant_impl.h"

namespace wafer::quant {

namespace {

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Rounds `value >> shift` to nearest, ties to even (shift >= 1).
uint32_t shift_round_even(uint32_t value, int shift) {
  uint32_t kept = value >> shift;
  uint32_t rest = value & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) ++kept;
  return kept;
}

struct TypeOps {
  TensorType type;
  TensorType act_type;
  void (*dequantize)(const void* src, float* dst, int64_t n);
  VecDotFn dot;
};

constexpr TypeOps kOps[] = {
    {TensorType::F32, TensorType::F32, dequantize_f32, vec_dot_f32},
    {TensorType::F16, TensorType::F16, dequantize_f16, vec_dot_f16},
    {TensorType::BF16, TensorType::BF16, dequantize_bf16, vec_dot_bf16},
    {TensorType::Q4_0, TensorType::Q8_0, dequantize_q4_0, vec_dot_q4_0_q8_0},
    {TensorType::Q4_1, TensorType::Q8_1, dequantize_q4_1, vec_dot_q4_1_q8_1},
    {TensorType::Q5_0, TensorType::Q8_0, dequantize_q5_0, vec_dot_q5_0_q8_0},
    {TensorType::Q5_1, TensorType::Q8_1, dequantize_q5_1, vec_dot_q5_1_q8_1},
    {TensorType::Q8_0, TensorType::Q8_0, dequantize_q8_0, vec_dot_q8_0_q8_0},
    {TensorType::Q4_K, TensorType::Q8_K, dequantize_q4_k, vec_dot_q4_k_q8_k},
    {TensorType::Q5_K, TensorType::Q8_K, dequantize_q5_k, vec_dot_q5_k_q8_k},
    {TensorType::Q6_K, TensorType::Q8_K, dequantize_q6_k, vec_dot_q6_k_q8_k},
};

const TypeOps* find_ops(TensorType type) {
  for (const auto& ops : kOps)
    if (ops.type == type) return &ops;
  return nullptr;
}

bool whole_blocks(TensorType type, int64_t n) {
  return n >= 0 && row_bytes(type, static_cast<uint64_t>(n)).has_value();
}

}  // namespace

float fp16_to_fp32(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ff;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000 | (man << 13));  // inf / NaN
  if (exp != 0) return bits_float(sign | ((exp + 112) << 23) | (man << 13));
  // Zero or subnormal: man * 2^-24, exact in float.
  float v = static_cast<float>(man) * 0x1p-24f;
  return sign ? -v : v;
}

uint16_t fp32_to_fp16(float f) {
  uint32_t x = float_bits(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  uint32_t exp = (x >> 23) & 0xff;
  uint32_t man = x & 0x7fffff;
  if (exp == 0xff) return sign | 0x7c00 | (man ? 0x200 : 0);
  int e = static_cast<int>(exp) - 112;  // the half exponent field, before range checks
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;  // below half the smallest subnormal: rounds to zero
    // Subnormal half: the 24-bit significand shifted so that one unit is 2^-24.
    return sign | static_cast<uint16_t>(shift_round_even(man | 0x800000, 14 - e));
  }
  // Normal: a carry out of the mantissa correctly bumps the exponent (up to infinity).
  uint32_t h = (static_cast<uint32_t>(e) << 10) | (man >> 13);
  uint32_t rest = man & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
  return sign | static_cast<uint16_t>(h);
}

uint16_t fp32_to_bf16(float f) {
  uint32_t x = float_bits(f);
  if ((x & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet NaN
  uint32_t round = 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>((x + round) >> 16);
}

void unpack_k_scale(int j, const uint8_t* q, uint8_t* scale, uint8_t* min) {
  if (j < 4) {
    *scale = q[j] & 63;
    *min = q[j + 4] & 63;
  } else {
    *scale = static_cast<uint8_t>((q[j + 4] & 0xf) | ((q[j - 4] >> 6) << 4));
    *min = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

bool is_supported_weight_type(TensorType type) { return find_ops(type) != nullptr; }

bool dequantize_row(TensorType type, const void* src, float* dst, int64_t n) {
  const TypeOps* ops = find_ops(type);
  if (!ops || !whole_blocks(type, n)) return false;
  ops->dequantize(src, dst, n);
  return true;
}

TensorType vec_dot_type(TensorType weight_type) {
  const TypeOps* ops = find_ops(weight_type);
  return ops ? ops->act_type : TensorType::F32;
}

VecDotFn vec_dot_fn(TensorType weight_type) {
  const TypeOps* ops = find_ops(weight_type);
  return ops ? ops->dot : nullptr;
}

bool quantize_activations(TensorType type, const float* src, void* dst, int64_t n) {
  if (!whole_blocks(type, n)) return false;
  switch (type) {
    case TensorType::F32:
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
      return true;
    case TensorType::F16: {
      auto* out = static_cast<uint16_t*>(dst);
      for (int64_t i = 0; i < n; ++i) out[i] = fp32_to_fp16(src[i]);
      return true;
    }
    case TensorType::BF16: {
      auto* out = static_cast<uint16_t*>(dst);
      for (int64_t i = 0; i < n; ++i) out[i] = fp32_to_bf16(src[i]);
      return true;
    }
    case TensorType::Q8_0:
      quantize_row_q8_0(src, static_cast<BlockQ8_0*>(dst), n);
      return true;
    case TensorType::Q8_1:
      quantize_row_q8_1(src, static_cast<BlockQ8_1*>(dst), n);
      return true;
    case TensorType::Q8_K:
      quantize_row_q8_K(src, static_cast<BlockQ8_K*>(dst), n);
      return true;
    default:
      return false;
  }
}

}  // namespace wafer::quant
