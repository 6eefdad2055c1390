// Block geometry of the GGUF tensor types matches ggml's definitions.
#include <catch2/catch.hpp>

#include "engine/quant/tensor_types.h"

using wafer::TensorType;

TEST_CASE("tensor types: names and block geometry", "[tensor_types]") {
  CHECK(wafer::tensor_type_name(TensorType::Q4_K) == "q4_K");
  CHECK(wafer::tensor_type_info(30)->name == "bf16");
  CHECK_FALSE(wafer::tensor_type_info(16).has_value());  // IQ2_XXS: not supported
  CHECK(*wafer::row_bytes(TensorType::F32, 896) == 3584);
  CHECK(*wafer::row_bytes(TensorType::Q8_0, 896) == 28 * 34);
  CHECK(*wafer::row_bytes(TensorType::Q4_K, 512) == 2 * 144);
  CHECK(*wafer::row_bytes(TensorType::Q6_K, 256) == 210);
  CHECK_FALSE(wafer::row_bytes(TensorType::Q4_K, 896).has_value());  // not a multiple of 256
  CHECK_FALSE(wafer::row_bytes(TensorType::Q5_0, 33).has_value());
}
