// The tensor element types of GGUF/ggml that wafer knows, with their block geometry.
// Quantized types store rows as a sequence of fixed-size blocks; a row of n elements of
// type t takes n / block_elems(t) * block_bytes(t) bytes (n must be a multiple of
// block_elems). The numeric values are the ones written in GGUF files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace wafer {

enum class TensorType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  BF16 = 30,
};

struct TensorTypeInfo {
  TensorType type;
  std::string_view name;  // as ggml names it: "f32", "q4_K", ...
  uint32_t block_elems;   // elements per block (1 for float types)
  uint32_t block_bytes;   // bytes per block
};

// Geometry of a type, or nullopt for a type value wafer does not know (e.g. IQ formats).
std::optional<TensorTypeInfo> tensor_type_info(uint32_t raw_type);
std::string_view tensor_type_name(TensorType type);

// Bytes of one row of n elements; nullopt when n is not a multiple of the block size or
// the type is unknown.
std::optional<uint64_t> row_bytes(TensorType type, uint64_t n);

}  // namespace wafer
