#include "engine/compute/kv_cache.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "engine/quant/float16.h"
#include "engine/quant/quant.h"

namespace wafer {

const char* kv_type_name(KvType type) {
  return type == KvType::F16 ? "f16" : type == KvType::Q8_0 ? "q8_0" : "f32";
}

Result<KvType> parse_kv_type(std::string_view name) {
  if (name == "f32") return KvType::F32;
  if (name == "f16") return KvType::F16;
  if (name == "q8_0") return KvType::Q8_0;
  return make_error("unknown KV cache type '" + std::string(name) + "' (f32, f16 or q8_0)");
}

double KvCache::bytes_per_token(const ModelConfig& c, KvType type) {
  const double heads = static_cast<double>(c.n_layer) * c.n_head_kv;
  switch (type) {
    case KvType::F32: return heads * 4.0 * (c.head_dim_k + c.head_dim_v);
    case KvType::F16: return heads * 2.0 * (c.head_dim_k + c.head_dim_v);
    case KvType::Q8_0: return heads * (18.0 / 16 * c.head_dim_k + 2.0 * c.head_dim_v);
  }
  return 0;
}

Result<KvCache> KvCache::create(const ModelConfig& c, int capacity, KvType type) {
  if (capacity <= 0) return make_error("kv cache: context length must be positive, got " + std::to_string(capacity));
  const uint64_t per_token = uint64_t{c.n_layer} * c.n_head_kv * (c.head_dim_k + c.head_dim_v);
  const uint64_t elements = per_token * static_cast<uint64_t>(capacity);
  const uint64_t element_bytes = type == KvType::F32 ? 4 : 2;
  if (per_token == 0 || elements > (uint64_t{1} << 36))  // 256 GiB of floats: certainly a bad request
    return make_error("kv cache: " + std::to_string(capacity) + " tokens would need " +
                      std::to_string(elements * element_bytes >> 20) + " MiB");
  if (type == KvType::Q8_0 && c.head_dim_k % 32 != 0)
    return make_error("kv cache: q8_0 keys need a key head size that is a multiple of 32, this model's is " +
                      std::to_string(c.head_dim_k) + " (use f16)");
  KvCache kv;
  kv.type_ = type;
  kv.n_layer_ = static_cast<int>(c.n_layer);
  kv.n_head_kv_ = static_cast<int>(c.n_head_kv);
  kv.dim_k_ = static_cast<int>(c.head_dim_k);
  kv.dim_v_ = static_cast<int>(c.head_dim_v);
  kv.capacity_ = capacity;
  kv.key_capacity_ = (capacity + kKeyBlock - 1) / kKeyBlock * kKeyBlock;
  const auto n_keys = static_cast<size_t>(uint64_t{c.n_layer} * c.n_head_kv * c.head_dim_k * kv.key_capacity_);
  const auto n_values = static_cast<size_t>(uint64_t{c.n_layer} * c.n_head_kv * c.head_dim_v * capacity);
  try {
    if (type == KvType::F16) {
      kv.k16_.assign(n_keys, 0);
      kv.v16_.assign(n_values, 0);
    } else if (type == KvType::Q8_0) {
      kv.k8_.assign(n_keys / kKeyBlock / kv.dim_k_ * kv.q8_block_bytes(), 0);
      kv.v16_.assign(n_values, 0);
    } else {
      kv.k_.assign(n_keys, 0.0f);
      kv.v_.assign(n_values, 0.0f);
    }
  } catch (const std::bad_alloc&) {
    return make_error("kv cache: out of memory for " + std::to_string(capacity) + " tokens (" +
                      std::to_string(elements * element_bytes >> 20) + " MiB)");
  }
  return kv;
}

Status KvCache::check_room(int64_t n) const {
  if (n < 0 || n > capacity_ - size_)
    return make_error("context full: " + std::to_string(size_) + " + " + std::to_string(n) +
                      " tokens exceed the context of " + std::to_string(capacity_) + " tokens");
  return {};
}

float KvCache::key(int layer, int head, int pos, int i) const {
  if (type_ == KvType::Q8_0) {
    const uint8_t* blk = keys_q8(layer, head) + static_cast<size_t>(pos / kKeyBlock) * q8_block_bytes();
    const int lane = pos % kKeyBlock;
    const auto q = static_cast<int>(blk[q8_quant_at(i, lane)]) - 128;
    float d;
    std::memcpy(&d, blk + q8_scale_at(dim_k_, i / 32, lane), 4);
    return d * static_cast<float>(q);
  }
  const size_t at = key_offset(layer, head) + key_index(pos, i);
  return type_ == KvType::F16 ? f16_to_f32(k16_[at]) : k_[at];
}

float KvCache::value(int layer, int head, int pos, int i) const {
  const size_t at = value_offset(layer, head) + static_cast<size_t>(pos) * dim_v_ + i;
  return type_ == KvType::F32 ? v_[at] : f16_to_f32(v16_[at]);
}

void KvCache::set_key(int layer, int head, int pos, const float* row) {
  if (type_ == KvType::Q8_0) {
    // Quantized the way llama.cpp's q8_0 cache is (quant::quantize_row_q8_0), then spread
    // into the block's layout.
    quant::BlockQ8_0 blocks[kMaxQ8Blocks];
    uint8_t* blk = k8_.data() + q8_key_offset(layer, head) + static_cast<size_t>(pos / kKeyBlock) * q8_block_bytes();
    const int lane = pos % kKeyBlock;
    for (int b0 = 0; b0 < dim_k_ / 32; b0 += kMaxQ8Blocks) {
      const int nb = std::min(kMaxQ8Blocks, dim_k_ / 32 - b0);
      quant::quantize_row_q8_0(row + b0 * 32, blocks, nb * 32);
      for (int b = 0; b < nb; ++b) {
        for (int j = 0; j < 32; ++j) {
          const int i = (b0 + b) * 32 + j;
          blk[q8_quant_at(i, lane)] = static_cast<uint8_t>(blocks[b].qs[j] + 128);
        }
        const float d = f16_to_f32(blocks[b].d);
        std::memcpy(blk + q8_scale_at(dim_k_, b0 + b, lane), &d, 4);
      }
    }
    return;
  }
  const size_t at = key_offset(layer, head) + key_index(pos, 0);
  if (type_ == KvType::F16 && dim_k_ <= kMaxRowHalves) {
    uint16_t halves[kMaxRowHalves];  // converted as a row (vectorized), then spread
    f32_to_f16_row(row, halves, static_cast<size_t>(dim_k_));
    for (int i = 0; i < dim_k_; ++i) k16_[at + static_cast<size_t>(i) * kKeyBlock] = halves[i];
    return;
  }
  for (int i = 0; i < dim_k_; ++i) {
    const size_t e = at + static_cast<size_t>(i) * kKeyBlock;
    if (type_ == KvType::F16)
      k16_[e] = f32_to_f16(row[i]);
    else
      k_[e] = row[i];
  }
}

void KvCache::get_key(int layer, int head, int pos, float* row) const {
  if (type_ == KvType::Q8_0) {
    for (int i = 0; i < dim_k_; ++i) row[i] = key(layer, head, pos, i);
    return;
  }
  const size_t at = key_offset(layer, head) + key_index(pos, 0);
  for (int i = 0; i < dim_k_; ++i) {
    const size_t e = at + static_cast<size_t>(i) * kKeyBlock;
    row[i] = type_ == KvType::F16 ? f16_to_f32(k16_[e]) : k_[e];
  }
}

void KvCache::set_value(int layer, int head, int pos, const float* row) {
  const size_t at = value_offset(layer, head) + static_cast<size_t>(pos) * dim_v_;
  if (type_ == KvType::F32)
    std::copy_n(row, dim_v_, v_.data() + at);
  else
    f32_to_f16_row(row, v16_.data() + at, static_cast<size_t>(dim_v_));
}

void KvCache::get_value(int layer, int head, int pos, float* row) const {
  const size_t at = value_offset(layer, head) + static_cast<size_t>(pos) * dim_v_;
  if (type_ == KvType::F32)
    std::copy_n(v_.data() + at, dim_v_, row);
  else
    f16_to_f32_row(v16_.data() + at, row, static_cast<size_t>(dim_v_));
}

void KvCache::read_range(int pos, int n, float* out) const {
  for (int l = 0; l < n_layer_; ++l)
    for (int h = 0; h < n_head_kv_; ++h) {
      for (int p = pos; p < pos + n; ++p, out += dim_k_) get_key(l, h, p, out);
      for (int p = pos; p < pos + n; ++p, out += dim_v_) get_value(l, h, p, out);
    }
}

void KvCache::write_range(int pos, int n, const float* in) {
  for (int l = 0; l < n_layer_; ++l)
    for (int h = 0; h < n_head_kv_; ++h) {
      for (int p = pos; p < pos + n; ++p, in += dim_k_) set_key(l, h, p, in);
      for (int p = pos; p < pos + n; ++p, in += dim_v_) set_value(l, h, p, in);
    }
}

}  // namespace wafer
