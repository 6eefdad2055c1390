// The attention key/value cache of one sequence: for every layer and KV head, the keys and
// values of the tokens seen so far, in float32 (as llama.cpp's exact F32 cache), in IEEE
// half (F16, llama.cpp's default: half the memory and half the bytes attention reads per
// token, values rounded to nearest even), or with 8-bit keys (Q8_0: keys quantized in
// blocks of 32 dimensions exactly as llama.cpp's `--cache-type-k q8_0` stores them, values
// in half; attention then scores keys with int8 dot products, a quarter of the
// instructions of float ones, and reads 0.56 of the key bytes).
// Memory is sized once from the requested context; appending beyond it is an error, never
// a reallocation. truncate(n) drops the tail (e.g. rejected draft tokens, or the part of an
// old prompt that a new one does not share); copy() is the only way to duplicate a cache,
// so its cost is visible at the call site.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/runtime/huge_pages.h"
#include "engine/model/model_config.h"
#include "engine/base/result.h"

namespace wafer {

enum class KvType { F32, F16, Q8_0 };
const char* kv_type_name(KvType type);                // "f32", "f16", "q8_0"
Result<KvType> parse_kv_type(std::string_view name);  // the inverse; an error names the choices

class KvCache {
 public:
  // A cache for up to `capacity` tokens. Fails for a capacity <= 0 or one whose memory would
  // not be addressable, and for Q8_0 when the key head size is not a multiple of 32.
  static Result<KvCache> create(const ModelConfig& config, int capacity, KvType type = KvType::F32);

  KvCache(KvCache&&) noexcept = default;
  KvCache& operator=(KvCache&&) noexcept = default;
  KvCache& operator=(const KvCache&) = delete;  // copy() instead (the copy constructor is private)

  KvCache copy() const { return KvCache(*this); }

  KvType type() const { return type_; }
  int capacity() const { return capacity_; }
  int size() const { return size_; }         // tokens stored (positions 0..size-1)
  size_t bytes() const {
    return (k_.size() + v_.size()) * sizeof(float) + (k16_.size() + v16_.size()) * 2 + k8_.size();
  }
  // Bytes one token takes in all layers and heads (keys + values), for sizing.
  static double bytes_per_token(const ModelConfig& config, KvType type);

  // An error when n more tokens would not fit (says how many do).
  Status check_room(int64_t n) const;
  // Marks positions [size, size + n) as filled (after the forward pass wrote them).
  void append(int n) { size_ += n; }
  // Keeps the first n tokens (n <= size).
  void truncate(int n) { size_ = n < size_ ? (n < 0 ? 0 : n) : size_; }

  // Floats one token range [pos, pos + n) takes in all layers and heads (keys + values).
  size_t range_floats(int n) const { return static_cast<size_t>(n_layer_) * n_head_kv_ * n * (dim_k_ + dim_v_); }
  // Copies the keys and values of positions [pos, pos + n) out to `out` (range_floats(n)
  // floats; per layer and head, n key rows then n value rows), or writes such a copy back
  // at positions [pos, pos + n); both need pos + n <= capacity and do not change size().
  // An F16 cache's values go through float unchanged, and so do a Q8_0 cache's (a key
  // quantized again from its own dequantized values gets the same quants and scale).
  void read_range(int pos, int n, float* out) const;
  void write_range(int pos, int n, const float* in);

  // Keys are stored transposed in blocks of 16 positions (kKeyBlock): for one layer and KV
  // head, block b holds head_dim x 16 elements, and dimension i of position p is at
  // keys(layer, head)[(p / 16 * head_dim + i) * 16 + p % 16]. One dimension of 16 keys is
  // then one contiguous vector, so attention scores 16 keys with plain fused multiply-adds
  // and no transposing reduction. The last block of a capacity that is not a multiple of
  // 16 is padded (its unused lanes hold zeros or stale keys; readers ignore them).
  // Values are rows: value p of a head at values(layer, head)[p * head_dim].
  // keys()/values() are for an F32 cache, keys_f16()/values_f16() for an F16 one.
  // A Q8_0 cache has F16 values (values_f16) and keys_q8(): key blocks of 16 positions of
  // q8_block_bytes() bytes, in the layout kQ8KeyLayout describes.
  static constexpr int kKeyBlock = 16;
  const float* keys(int layer, int head) const { return k_.data() + key_offset(layer, head); }
  const float* values(int layer, int head) const { return v_.data() + value_offset(layer, head); }
  const uint16_t* keys_f16(int layer, int head) const { return k16_.data() + key_offset(layer, head); }
  const uint16_t* values_f16(int layer, int head) const { return v16_.data() + value_offset(layer, head); }

  const uint8_t* keys_q8(int layer, int head) const { return k8_.data() + q8_key_offset(layer, head); }
  // Q8_0 keys, block of 16 positions (dimensions i of position p, 32-dimension block b):
  //   bytes [0, 16 dk): quants, ((i / 4) * 16 + p % 16) * 4 + i % 4 -> q + 128 (unsigned,
  //                     as vpdpbusd multiplies them; an AVX2 kernel flips the top bit back)
  //   bytes [16 dk, 18 dk): scales, float (the half ggml stores, widened) at
  //                     16 dk + (b * 16 + p % 16) * 4
  // so one vector of 16 lanes holds 4 dimensions of 16 keys, and the 16 keys' scales of a
  // block are one float vector.
  size_t q8_block_bytes() const { return static_cast<size_t>(18) * dim_k_; }
  // Byte offsets in such a block (key head size dk) of dimension i's quant and of the scale
  // of 32-dimension block b, for the key in lane p % 16.
  static constexpr size_t q8_quant_at(int i, int lane) {
    return (static_cast<size_t>(i / 4) * kKeyBlock + lane) * 4 + i % 4;
  }
  static constexpr size_t q8_scale_at(int dk, int b, int lane) {
    return static_cast<size_t>(16) * dk + (static_cast<size_t>(b) * kKeyBlock + lane) * 4;
  }

  // One element, any type (tests, the scalar path).
  float key(int layer, int head, int pos, int i) const;
  float value(int layer, int head, int pos, int i) const;
  // Writes / reads the head_dim floats of the key or value of `pos` (F16: rounded on write).
  void set_key(int layer, int head, int pos, const float* row);
  void get_key(int layer, int head, int pos, float* row) const;
  void set_value(int layer, int head, int pos, const float* row);
  void get_value(int layer, int head, int pos, float* row) const;

 private:
  KvCache() = default;
  KvCache(const KvCache&) = default;
  size_t key_offset(int layer, int head) const {
    return (static_cast<size_t>(layer) * n_head_kv_ + head) * key_capacity_ * dim_k_;
  }
  size_t value_offset(int layer, int head) const {
    return (static_cast<size_t>(layer) * n_head_kv_ + head) * capacity_ * dim_v_;
  }
  size_t q8_key_offset(int layer, int head) const {  // bytes
    return (static_cast<size_t>(layer) * n_head_kv_ + head) * (key_capacity_ / kKeyBlock) * q8_block_bytes();
  }
  size_t key_index(int pos, int i) const {
    return (static_cast<size_t>(pos / kKeyBlock) * dim_k_ + i) * kKeyBlock + pos % kKeyBlock;
  }

  static constexpr int kMaxQ8Blocks = 8;  // 32-dimension blocks quantized per step in set_key
  static constexpr int kMaxRowHalves = 512;  // F16 keys up to this size are converted as one row
  KvType type_ = KvType::F32;
  int n_layer_ = 0, n_head_kv_ = 0, dim_k_ = 0, dim_v_ = 0;
  int capacity_ = 0, size_ = 0;
  int key_capacity_ = 0;  // capacity rounded up to whole key blocks
  // One pair is used, by type: keys (n_layer, n_head_kv, key_capacity / 16, dim_k, 16),
  // values (n_layer, n_head_kv, capacity, dim_v).
  // On huge pages (huge_pages.h): attention streams a head's keys and values, up to
  // hundreds of KiB, for every decoded token.
  std::vector<float, HugePageAllocator<float>> k_, v_;
  std::vector<uint16_t, HugePageAllocator<uint16_t>> k16_, v16_;  // F16 keys, F16 and Q8_0 values
  std::vector<uint8_t, HugePageAllocator<uint8_t>> k8_;  // Q8_0 keys
};

}  // namespace wafer
