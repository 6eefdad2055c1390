// Test helper (header-only): writes small transformer GGUFs straight from the architecture's
// weight table (engine/model/arch.h), with any supported weight type -- types the GGUF writer
// cannot encode from float (Q4_1, Q5_x, K-quants) get random blocks with sane scales -- and
// hooks to break a file on purpose (omit, reshape or retype one tensor).
#pragma once

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "engine/model/arch.h"
#include "engine/quant/float16.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/model/model_config.h"
#include "engine/quant/tensor_types.h"

namespace wafer::test {

// Random bytes for n elements of type t, with every scale field a small positive half (random
// bits there would be NaNs and infinities), offsets (Q4_1/Q5_1 m) that center the values on
// zero, and F16/BF16 values of moderate size. Fast enough for a 0.5B-parameter file.
// Fills row_bytes(t, n) bytes at `out`.
inline void random_row(TensorType t, uint64_t n, std::mt19937& rng, uint8_t* out) {
  const std::span<uint8_t> bytes(out, *row_bytes(t, n));
  uint64_t state = (static_cast<uint64_t>(rng()) << 32) | rng();
  for (size_t i = 0; i < bytes.size(); i += 8) {  // splitmix64, 8 bytes per step
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    std::memcpy(bytes.data() + i, &z, std::min<size_t>(8, bytes.size() - i));
  }
  std::uniform_real_distribution<float> scale(0.001f, 0.05f);
  auto put = [&](size_t offset, uint16_t bits) { std::memcpy(bytes.data() + offset, &bits, 2); };
  const auto info = *tensor_type_info(static_cast<uint32_t>(t));
  const size_t step = (t == TensorType::F16 || t == TensorType::BF16) ? 2 : info.block_bytes;
  for (size_t off = 0; off < bytes.size(); off += step) {
    const float d = scale(rng);
    switch (t) {
      case TensorType::F16: put(off, f32_to_f16(d * 20 - 0.5f)); break;
      case TensorType::BF16: put(off, f32_to_bf16(d * 20 - 0.5f)); break;
      case TensorType::Q4_1:
        put(off, f32_to_f16(d));
        put(off + 2, f32_to_f16(-7.5f * d));
        break;
      case TensorType::Q5_1:
        put(off, f32_to_f16(d));
        put(off + 2, f32_to_f16(-15.5f * d));
        break;
      case TensorType::Q4_K:
      case TensorType::Q5_K:
        put(off, f32_to_f16(d));
        put(off + 2, f32_to_f16(scale(rng)));
        break;
      case TensorType::Q6_K: put(off + 208, f32_to_f16(d)); break;
      default: put(off, f32_to_f16(d));  // Q4_0, Q5_0, Q8_0: d comes first
    }
  }
}

inline std::vector<uint8_t> random_row(TensorType t, uint64_t n, std::mt19937& rng) {
  std::vector<uint8_t> bytes(*row_bytes(t, n));
  random_row(t, n, rng, bytes.data());
  return bytes;
}

struct TestModelSpec {
  std::string arch = "llama";  // "llama" or "qwen2" (QKV biases, NeoX RoPE)
  uint32_t n_embd = 64, n_layer = 2, n_head = 4, n_head_kv = 2;
  uint32_t head_dim = 0;  // 0: n_embd / n_head; else written as key_length / value_length
  uint32_t n_ff = 96, n_vocab = 300, context = 4096;
  float rope_base = 10000.0f, norm_eps = 1e-5f;
  TensorType matrix_type = TensorType::F32;  // layer matrices and output.weight
  TensorType embd_type = TensorType::F32;
  bool tied = false;
  bool random_blocks = false;  // random quant blocks even for types the writer can encode (fast)
  uint64_t seed = 1;
  // Breaking a file on purpose:
  std::string omit;                          // leave out this tensor
  std::string reshape;                       // write this tensor with one extra row
  std::string retype;                        // write this tensor as retype_to (random bytes)
  TensorType retype_to = TensorType::Q8_1;  // a known type wafer cannot multiply
};

inline ModelConfig test_config(const TestModelSpec& s) {
  ModelConfig c;
  c.arch = find_architecture(s.arch);
  c.n_embd = s.n_embd;
  c.n_layer = s.n_layer;
  c.n_head = s.n_head;
  c.n_head_kv = s.n_head_kv;
  c.head_dim_k = c.head_dim_v = s.head_dim ? s.head_dim : s.n_embd / s.n_head;
  c.n_rot = c.head_dim_k;
  c.n_ff = s.n_ff;
  c.n_vocab = s.n_vocab;
  return c;
}

inline GgufWriter test_model_writer(const TestModelSpec& s) {
  const ModelConfig c = test_config(s);
  GgufWriter w;
  const std::string a = s.arch;
  w.add_string("general.architecture", a);
  w.add_string("general.name", "wafer-test");
  w.add_u32(a + ".context_length", s.context);
  w.add_u32(a + ".embedding_length", s.n_embd);
  w.add_u32(a + ".block_count", s.n_layer);
  w.add_u32(a + ".feed_forward_length", s.n_ff);
  w.add_u32(a + ".attention.head_count", s.n_head);
  w.add_u32(a + ".attention.head_count_kv", s.n_head_kv);
  if (s.head_dim) {
    w.add_u32(a + ".attention.key_length", s.head_dim);
    w.add_u32(a + ".attention.value_length", s.head_dim);
  }
  w.add_f32(a + ".rope.freq_base", s.rope_base);
  w.add_f32(a + ".attention.layer_norm_rms_epsilon", s.norm_eps);

  std::mt19937 rng(static_cast<uint32_t>(s.seed));
  for (const WeightSpec& spec : transformer_weights()) {
    if (spec.role == WeightRole::kOutput && s.tied) continue;
    if (spec.presence == Presence::kIfQkvBias && !c.arch->qkv_bias) continue;
    for (uint32_t layer = 0; layer < (spec.per_layer ? s.n_layer : 1u); ++layer) {
      const std::string name = weight_name(spec, static_cast<int>(layer));
      if (name == s.omit) continue;
      const uint64_t ne0 = resolve_dim(spec.ne0, c);
      uint64_t ne1 = resolve_dim(spec.ne1, c) + (name == s.reshape ? 1 : 0);
      std::vector<uint64_t> ne{ne0};
      if (spec.ne1 != Dim::kNone || name == s.reshape) ne.push_back(ne1);
      TensorType type = TensorType::F32;
      if (spec.role == WeightRole::kTokenEmbd) type = s.embd_type;
      else if (spec.matrix) type = s.matrix_type;
      if (name == s.retype) type = s.retype_to;
      const bool is_norm = spec.ne1 == Dim::kNone && spec.presence != Presence::kIfQkvBias;
      const float std_dev = spec.role == WeightRole::kTokenEmbd ? 1.0f : (is_norm ? 0.1f : 0.15f);
      const uint64_t rows = ne.size() > 1 ? ne[1] : 1;
      if (can_encode(type) && !(s.random_blocks && type != TensorType::F32)) {
        std::vector<float> data(ne0 * rows);
        std::normal_distribution<float> normal(0.0f, std_dev);
        for (auto& x : data) x = (is_norm ? 1.0f : 0.0f) + normal(rng);
        w.add_tensor(name, type, ne, data);
      } else {
        const size_t rb = *row_bytes(type, ne0);
        std::vector<uint8_t> bytes(rb * rows);
        for (uint64_t r = 0; r < rows; ++r) random_row(type, ne0, rng, bytes.data() + r * rb);
        w.add_tensor_raw(name, type, ne, std::move(bytes));
      }
    }
  }
  return w;
}

inline Status write_test_model(const TestModelSpec& s, const std::filesystem::path& path) {
  return test_model_writer(s).write(path);
}

}  // namespace wafer::test
