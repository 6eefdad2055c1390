// GGUF v3 writer, for tests and tools that make model files: metadata of every type
// (including arrays of strings), and tensors stored as F32/F16/BF16/Q8_0/Q4_0 (and, with the
// simple quantizers of quantize_kquants.h, Q5_0/Q4_K/Q6_K) converted from
// float (rounding like ggml), or as raw bytes of any type. Tensor data can come from a
// row generator called while writing, so multi-hundred-megabyte files are written without
// holding their weights in memory.
//
//   GgufWriter w;
//   w.add_string("general.architecture", "llama");
//   w.add_u32("llama.block_count", 2);
//   w.add_tensor("token_embd.weight", TensorType::Q8_0, {64, 256}, floats);  // ne[0] first
//   Status s = w.write(path);
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/gguf/gguf.h"
#include "engine/base/result.h"
#include "engine/quant/tensor_types.h"

namespace wafer {

class GgufWriter {
 public:
  // Fills one row (ne[0] floats) of a tensor; rows are numbered over all dimensions > 0.
  using RowFiller = std::function<void(uint64_t row, float* out)>;

  void add_u8(std::string_view key, uint8_t v);
  void add_i8(std::string_view key, int8_t v);
  void add_u16(std::string_view key, uint16_t v);
  void add_i16(std::string_view key, int16_t v);
  void add_u32(std::string_view key, uint32_t v);
  void add_i32(std::string_view key, int32_t v);
  void add_u64(std::string_view key, uint64_t v);
  void add_i64(std::string_view key, int64_t v);
  void add_f32(std::string_view key, float v);
  void add_f64(std::string_view key, double v);
  void add_bool(std::string_view key, bool v);
  void add_string(std::string_view key, std::string_view v);
  void add_string_array(std::string_view key, std::span<const std::string> v);
  void add_i32_array(std::string_view key, std::span<const int32_t> v);
  void add_f32_array(std::string_view key, std::span<const float> v);
  // Any fixed-size element type: `elems` holds count little-endian elements.
  void add_array(std::string_view key, GgufType elem_type, uint64_t count, std::span<const uint8_t> elems);

  // general.alignment (a power of two); written as a uint32 key when not 32.
  void set_alignment(uint32_t alignment) { alignment_ = alignment; }

  // Tensors. `ne` is in ggml order (ne[0] = row length), 1 to 4 dimensions. Errors (bad
  // shape, type not convertible from float, wrong data size) are reported by write().
  void add_tensor(std::string_view name, TensorType type, std::vector<uint64_t> ne, std::span<const float> data);
  void add_tensor(std::string_view name, TensorType type, std::vector<uint64_t> ne, RowFiller fill);
  void add_tensor_raw(std::string_view name, TensorType type, std::vector<uint64_t> ne,
                      std::vector<uint8_t> bytes);

  Status write(const std::filesystem::path& path) const;
  Result<std::vector<uint8_t>> to_bytes() const;

 private:
  struct Tensor {
    std::string name;
    TensorType type;
    std::vector<uint64_t> ne;
    RowFiller fill;                   // from float
    std::optional<uint64_t> n_floats;  // floats given to add_tensor(span), checked in plan()
    std::vector<uint8_t> raw;         // or raw bytes
    bool is_raw = false;
  };
  struct Layout {
    uint64_t n_bytes;
    uint64_t offset;  // in the data section
  };
  void key(std::string_view key, GgufType type);
  template <typename T>
  void scalar(std::string_view k, GgufType type, T v);
  Status plan(std::vector<Layout>& layout, std::vector<uint8_t>& header) const;
  template <typename Sink>
  Status emit(Sink& sink) const;

  std::vector<uint8_t> kv_bytes_;  // the encoded metadata entries, in order
  uint64_t n_kv_ = 0;
  uint32_t alignment_ = 32;
  std::vector<Tensor> tensors_;
};

// True for the types encode_row can produce from float.
bool can_encode(TensorType type);
// Encodes one row of n floats as `type` (F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_K, Q6_K) into out
// (row_bytes(type, n) bytes). Returns false for other types.
bool encode_row(TensorType type, const float* x, uint64_t n, uint8_t* out);

}  // namespace wafer
