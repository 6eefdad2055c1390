// The attention key/value cache of one sequence: for every layer and KV head, the keys and
// values of the tokens seen so far, in float32 (as llama.cpp's exact F32 cache) or in IEEE
// half (F16, llama.cpp's default: half the memory and half the bytes attention reads per
// token, values rounded to nearest even).
// Memory is sized once from the requested context; appending beyond it is an error, never
// a reallocation. truncate(n) drops the tail (e.g. rejected draft tokens, or the part of an
// old prompt that a new one does not share); copy() is the only way to duplicate a cache,
// so its cost is visible at the call site.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/huge_pages.h"
#include "engine/model_config.h"
#include "engine/result.h"

namespace wafer {

enum class KvType { F32, F16 };
const char* kv_type_name(KvType type);                // "f32", "f16"
Result<KvType> parse_kv_type(std::string_view name);  // the inverse; an error names the choices

class KvCache {
 public:
  // A cache for up to `capacity` tokens. Fails for a capacity <= 0 or one whose memory would
  // not be addressable.
  static Result<KvCache> create(const ModelConfig& config, int capacity, KvType type = KvType::F32);

  KvCache(KvCache&&) noexcept = default;
  KvCache& operator=(KvCache&&) noexcept = default;
  KvCache& operator=(const KvCache&) = delete;  // copy() instead (the copy constructor is private)

  KvCache copy() const { return KvCache(*this); }

  KvType type() const { return type_; }
  int capacity() const { return capacity_; }
  int size() const { return size_; }         // tokens stored (positions 0..size-1)
  size_t bytes() const { return (k_.size() + v_.size()) * sizeof(float) + (k16_.size() + v16_.size()) * 2; }

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
  // An F16 cache's values go through float unchanged.
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
  static constexpr int kKeyBlock = 16;
  const float* keys(int layer, int head) const { return k_.data() + key_offset(layer, head); }
  const float* values(int layer, int head) const { return v_.data() + value_offset(layer, head); }
  const uint16_t* keys_f16(int layer, int head) const { return k16_.data() + key_offset(layer, head); }
  const uint16_t* values_f16(int layer, int head) const { return v16_.data() + value_offset(layer, head); }

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
  size_t key_index(int pos, int i) const {
    return (static_cast<size_t>(pos / kKeyBlock) * dim_k_ + i) * kKeyBlock + pos % kKeyBlock;
  }

  KvType type_ = KvType::F32;
  int n_layer_ = 0, n_head_kv_ = 0, dim_k_ = 0, dim_v_ = 0;
  int capacity_ = 0, size_ = 0;
  int key_capacity_ = 0;  // capacity rounded up to whole key blocks
  // One pair is used, by type: keys (n_layer, n_head_kv, key_capacity / 16, dim_k, 16),
  // values (n_layer, n_head_kv, capacity, dim_v).
  // On huge pages (huge_pages.h): attention streams a head's keys and values, up to
  // hundreds of KiB, for every decoded token.
  std::vector<float, HugePageAllocator<float>> k_, v_;
  std::vector<uint16_t, HugePageAllocator<uint16_t>> k16_, v16_;
};

}  // namespace wafer
