// GGUF (v2/v3) reader: the model file format of llama.cpp. A GgufFile is a validated view of
// a file mapped read-only (or of a caller's memory buffer): header, metadata key/values and
// tensor infos are parsed once at open, with every count, length and offset bounds-checked
// against the bytes actually present, so that later accessors never read outside the file.
// A hostile or truncated file gives an Error naming the field and its byte offset.
//
// Layout (all little-endian): "GGUF" u32 version, u64 n_tensors, u64 n_kv, n_kv x
// {string key, u32 type, value}, n_tensors x {string name, u32 n_dims, u64 ne[n_dims],
// u32 type, u64 offset}, padding to `general.alignment` (default 32), tensor data. A string
// is u64 length + bytes (no terminator); an array is u32 element type + u64 count + elements.
//
// Views returned (names, strings, string arrays, tensor data) point into the mapping and
// live as long as the GgufFile (moving a GgufFile keeps them valid).
//
//   auto file = GgufFile::open(path);                                  // Result<GgufFile>
//   if (!file) return file.error();                                    // "PATH: gguf: ..."
//   auto n_layer = file->get_u32("llama.block_count");                 // Result<uint32_t>
//   auto tokens = file->get_string_array("tokenizer.ggml.tokens");     // span<string_view>
//   const GgufTensor* q = file->tensor("blk.0.attn_q.weight");         // nullptr if absent
//   // q->type, q->ne[0] (row length), q->rows(), q->n_bytes, q->data
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/base/result.h"
#include "engine/quant/tensor_types.h"

namespace wafer {

// Metadata value types, numbered as in the file.
enum class GgufType : uint32_t {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
};

// "uint32", "string", ... ("type 42" for values outside the enum).
std::string gguf_type_name(GgufType type);
// Bytes of one scalar of a fixed-size type (0 for STRING, ARRAY and unknown types).
size_t gguf_scalar_size(GgufType type);

// An array value. Numeric elements are left in the file (little-endian, possibly
// unaligned): read them with the typed getters of GgufFile, or gguf_read_scalar. String
// elements are views into the file, indexed once at open.
struct GgufArray {
  GgufType elem_type = GgufType::UINT8;
  uint64_t count = 0;
  const uint8_t* data = nullptr;             // numeric elements (count * scalar size bytes)
  std::vector<std::string_view> strings;     // elem_type == STRING: the count strings
};

// One metadata value. Integer values of every width are widened into `i` (signed types,
// bool) or `u` (unsigned types); floats into `f`.
struct GgufValue {
  GgufType type = GgufType::UINT8;
  uint64_t u = 0;
  int64_t i = 0;
  double f = 0;
  std::string_view str;  // STRING
  GgufArray array;       // ARRAY
};

// Decodes one scalar of a fixed-size type from `bytes` (gguf_scalar_size(type) bytes, any
// alignment), e.g. element i of a numeric array at array.data + i * gguf_scalar_size(type).
GgufValue gguf_read_scalar(GgufType type, const uint8_t* bytes);

struct GgufKeyValue {
  std::string_view key;
  GgufValue value;
  uint64_t offset = 0;  // byte offset of the key in the file (for messages)
};

// One tensor: shape in ggml order (ne[0] is the row length, i.e. the contiguous dimension;
// unused dimensions are 1), and its bytes inside the file.
struct GgufTensor {
  std::string_view name;
  TensorType type = TensorType::F32;
  uint32_t n_dims = 0;
  std::array<uint64_t, 4> ne{1, 1, 1, 1};
  uint64_t n_elements = 0;
  uint64_t offset = 0;   // relative to the data section
  uint64_t n_bytes = 0;
  const uint8_t* data = nullptr;

  uint64_t rows() const { return n_elements / (ne[0] ? ne[0] : 1); }
};

class GgufFile {
 public:
  // Maps `path` read-only and parses it. Errors start with "PATH: gguf: ".
  static Result<GgufFile> open(const std::filesystem::path& path);
  // Parses a buffer the caller keeps alive for the GgufFile's lifetime (tests, fuzzing).
  static Result<GgufFile> parse(const void* data, size_t size);

  GgufFile(GgufFile&&) noexcept;
  GgufFile& operator=(GgufFile&&) noexcept;
  ~GgufFile();

  uint32_t version() const { return version_; }
  uint32_t alignment() const { return alignment_; }
  uint64_t file_size() const { return size_; }
  uint64_t data_offset() const { return data_offset_; }  // start of the tensor data section

  // --- metadata ---
  const std::vector<GgufKeyValue>& metadata() const { return kvs_; }
  const GgufValue* find(std::string_view key) const;  // nullptr when absent
  bool has(std::string_view key) const { return find(key) != nullptr; }

  // Typed getters: an error when the key is absent, of another type, or (for integers)
  // out of the requested type's range. Integer getters accept any integer type and bool
  // is not an integer; get_f32/get_f64 accept FLOAT32 and FLOAT64.
  Result<uint32_t> get_u32(std::string_view key) const;
  Result<uint64_t> get_u64(std::string_view key) const;
  Result<int32_t> get_i32(std::string_view key) const;
  Result<int64_t> get_i64(std::string_view key) const;
  Result<float> get_f32(std::string_view key) const;
  Result<double> get_f64(std::string_view key) const;
  Result<bool> get_bool(std::string_view key) const;
  Result<std::string_view> get_string(std::string_view key) const;

  // Arrays. String arrays are views (no copy: fine for 150k-token vocabularies); numeric
  // arrays are decoded into a vector in one pass. get_i32_array accepts any integer element
  // type whose values fit; get_f32_array accepts FLOAT32 and FLOAT64 elements.
  Result<std::span<const std::string_view>> get_string_array(std::string_view key) const;
  Result<std::vector<int32_t>> get_i32_array(std::string_view key) const;
  Result<std::vector<float>> get_f32_array(std::string_view key) const;
  // Number of elements of an array value (any element type).
  Result<uint64_t> get_array_length(std::string_view key) const;

  // --- tensors ---
  const std::vector<GgufTensor>& tensors() const { return tensors_; }
  const GgufTensor* tensor(std::string_view name) const;  // nullptr when absent
  // Drops a tensor's pages from this process's resident memory when the file is mapped
  // (platform::release_file_pages; reading the tensor again faults them back in); nothing
  // for a caller's buffer. For tensors whose values were copied out (repacked weights).
  void release(const GgufTensor& t) const;

 private:
  GgufFile();
  struct Mapping;
  friend class GgufParser;

  std::unique_ptr<Mapping> mapping_;  // null for parse() of a caller's buffer
  const uint8_t* base_ = nullptr;
  uint64_t size_ = 0;
  uint32_t version_ = 0;
  uint32_t alignment_ = 32;
  uint64_t data_offset_ = 0;
  std::vector<GgufKeyValue> kvs_;
  std::unordered_map<std::string_view, size_t> kv_index_;
  std::vector<GgufTensor> tensors_;
  std::unordered_map<std::string_view, size_t> tensor_index_;
};

}  // namespace wafer
