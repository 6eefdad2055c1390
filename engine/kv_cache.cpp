#include "engine/kv_cache.h"

#include <algorithm>
#include <new>
#include <string>

namespace wafer {

Result<KvCache> KvCache::create(const ModelConfig& c, int capacity) {
  if (capacity <= 0) return make_error("kv cache: context length must be positive, got " + std::to_string(capacity));
  const uint64_t per_token = uint64_t{c.n_layer} * c.n_head_kv * (c.head_dim_k + c.head_dim_v);
  const uint64_t floats = per_token * static_cast<uint64_t>(capacity);
  if (per_token == 0 || floats > (uint64_t{1} << 36))  // 256 GiB: certainly a bad request
    return make_error("kv cache: " + std::to_string(capacity) + " tokens would need " +
                      std::to_string(floats * 4 >> 20) + " MiB");
  KvCache kv;
  kv.n_layer_ = static_cast<int>(c.n_layer);
  kv.n_head_kv_ = static_cast<int>(c.n_head_kv);
  kv.dim_k_ = static_cast<int>(c.head_dim_k);
  kv.dim_v_ = static_cast<int>(c.head_dim_v);
  kv.capacity_ = capacity;
  try {
    kv.k_.assign(static_cast<size_t>(uint64_t{c.n_layer} * c.n_head_kv * c.head_dim_k * capacity), 0.0f);
    kv.v_.assign(static_cast<size_t>(uint64_t{c.n_layer} * c.n_head_kv * c.head_dim_v * capacity), 0.0f);
  } catch (const std::bad_alloc&) {
    return make_error("kv cache: out of memory for " + std::to_string(capacity) + " tokens (" +
                      std::to_string(floats * 4 >> 20) + " MiB)");
  }
  return kv;
}

Status KvCache::check_room(int64_t n) const {
  if (n < 0 || n > capacity_ - size_)
    return make_error("context full: " + std::to_string(size_) + " + " + std::to_string(n) +
                      " tokens exceed the context of " + std::to_string(capacity_) + " tokens");
  return {};
}

void KvCache::read_range(int pos, int n, float* out) const {
  for (int l = 0; l < n_layer_; ++l)
    for (int h = 0; h < n_head_kv_; ++h) {
      out = std::copy_n(k(l, h, pos), static_cast<size_t>(n) * dim_k_, out);
      out = std::copy_n(v(l, h, pos), static_cast<size_t>(n) * dim_v_, out);
    }
}

void KvCache::write_range(int pos, int n, const float* in) {
  const size_t nk = static_cast<size_t>(n) * dim_k_, nv = static_cast<size_t>(n) * dim_v_;
  for (int l = 0; l < n_layer_; ++l)
    for (int h = 0; h < n_head_kv_; ++h) {
      std::copy_n(in, nk, k(l, h, pos));
      std::copy_n(in + nk, nv, v(l, h, pos));
      in += nk + nv;
    }
}

}  // namespace wafer
