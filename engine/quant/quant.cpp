// The K-quant scale unpacking, and the per-type table that ties a weight type to its
// activation format, dequantizer and dot product.
#include "engine/quant/quant.h"

#include <cstring>
#include <vector>

#include "engine/quant/quant_impl.h"

namespace wafer::quant {

namespace {

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

const float* f16_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (uint32_t h = 0; h < 65536; ++h) t[h] = f16_to_f32(static_cast<uint16_t>(h));
    return t;
  }();
  return table.data();
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
    case TensorType::F16:
      f32_to_f16_row(src, static_cast<uint16_t*>(dst), static_cast<size_t>(n));
      return true;
    case TensorType::BF16:
      f32_to_bf16_row(src, static_cast<uint16_t*>(dst), static_cast<size_t>(n));
      return true;
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
