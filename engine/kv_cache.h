// The attention key/value cache of one sequence: for every layer and KV head, the keys and
// values of the tokens seen so far, in float32 (as llama.cpp's default-exact F32 cache).
// Memory is sized once from the requested context; appending beyond it is an error, never
// a reallocation. truncate(n) drops the tail (e.g. rejected draft tokens, or the part of an
// old prompt that a new one does not share); copy() is the only way to duplicate a cache,
// so its cost is visible at the call site.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/model_config.h"
#include "engine/result.h"

namespace wafer {

class KvCache {
 public:
  // A cache for up to `capacity` tokens. Fails for a capacity <= 0 or one whose memory would
  // not be addressable.
  static Result<KvCache> create(const ModelConfig& config, int capacity);

  KvCache(KvCache&&) noexcept = default;
  KvCache& operator=(KvCache&&) noexcept = default;
  KvCache& operator=(const KvCache&) = delete;  // copy() instead (the copy constructor is private)

  KvCache copy() const { return KvCache(*this); }

  int capacity() const { return capacity_; }
  int size() const { return size_; }         // tokens stored (positions 0..size-1)
  size_t bytes() const { return (k_.size() + v_.size()) * sizeof(float); }

  // An error when n more tokens would not fit (says how many do).
  Status check_room(int64_t n) const;
  // Marks positions [size, size + n) as filled (after the forward pass wrote them).
  void append(int n) { size_ += n; }
  // Keeps the first n tokens (n <= size).
  void truncate(int n) { size_ = n < size_ ? (n < 0 ? 0 : n) : size_; }

  // Floats one token range [pos, pos + n) takes in all layers and heads (keys + values).
  size_t range_floats(int n) const { return static_cast<size_t>(n_layer_) * n_head_kv_ * n * (dim_k_ + dim_v_); }
  // Copies the keys and values of positions [pos, pos + n) out to `out` (range_floats(n)
  // floats), or writes such a copy back at positions [pos, pos + n); both need
  // pos + n <= capacity and do not change size().
  void read_range(int pos, int n, float* out) const;
  void write_range(int pos, int n, const float* in);

  // Key / value vector of `pos` in `layer`, KV head `head`: head_dim floats, and the keys /
  // values of one head for all positions at a stride of head_dim (k(l, h, 0)[p * dim]).
  float* k(int layer, int head, int pos) { return k_.data() + offset(layer, head, pos, dim_k_); }
  float* v(int layer, int head, int pos) { return v_.data() + offset(layer, head, pos, dim_v_); }
  const float* k(int layer, int head, int pos) const { return k_.data() + offset(layer, head, pos, dim_k_); }
  const float* v(int layer, int head, int pos) const { return v_.data() + offset(layer, head, pos, dim_v_); }

 private:
  KvCache() = default;
  KvCache(const KvCache&) = default;
  size_t offset(int layer, int head, int pos, int dim) const {
    return ((static_cast<size_t>(layer) * n_head_kv_ + head) * capacity_ + pos) * dim;
  }

  int n_layer_ = 0, n_head_kv_ = 0, dim_k_ = 0, dim_v_ = 0;
  int capacity_ = 0, size_ = 0;
  std::vector<float> k_;  // (n_layer, n_head_kv, capacity, dim_k)
  std::vector<float> v_;  // (n_layer, n_head_kv, capacity, dim_v)
};

}  // namespace wafer
