#include "engine/quant/tensor_types.h"

#include <array>

namespace wafer {
namespace {

// Block geometry as defined by ggml (ggml-common.h): e.g. Q8_0 is a f16 scale + 32 int8,
// Q4_K is 2 f16 + 12 bytes of 6-bit scales + 128 bytes of nibbles for 256 elements.
constexpr std::array<TensorTypeInfo, 15> kTypes{{
    {TensorType::F32, "f32", 1, 4},
    {TensorType::F16, "f16", 1, 2},
    {TensorType::Q4_0, "q4_0", 32, 18},
    {TensorType::Q4_1, "q4_1", 32, 20},
    {TensorType::Q5_0, "q5_0", 32, 22},
    {TensorType::Q5_1, "q5_1", 32, 24},
    {TensorType::Q8_0, "q8_0", 32, 34},
    {TensorType::Q8_1, "q8_1", 32, 36},
    {TensorType::Q2_K, "q2_K", 256, 84},
    {TensorType::Q3_K, "q3_K", 256, 110},
    {TensorType::Q4_K, "q4_K", 256, 144},
    {TensorType::Q5_K, "q5_K", 256, 176},
    {TensorType::Q6_K, "q6_K", 256, 210},
    {TensorType::Q8_K, "q8_K", 256, 292},
    {TensorType::BF16, "bf16", 1, 2},
}};

}  // namespace

std::optional<TensorTypeInfo> tensor_type_info(uint32_t raw) {
  for (const auto& t : kTypes)
    if (static_cast<uint32_t>(t.type) == raw) return t;
  return std::nullopt;
}

std::string_view tensor_type_name(TensorType type) {
  auto i = tensor_type_info(static_cast<uint32_t>(type));
  return i ? i->name : std::string_view("unknown");
}

std::optional<uint64_t> row_bytes(TensorType type, uint64_t n) {
  auto i = tensor_type_info(static_cast<uint32_t>(type));
  if (!i || n % i->block_elems != 0) return std::nullopt;
  return n / i->block_elems * i->block_bytes;
}

}  // namespace wafer
