// Model hyper-parameters read from a GGUF's metadata (`general.architecture` and the
// `{arch}.*` keys llama.cpp writes), plus what each architecture family is made of. The
// families are rows of a small table (model_config.cpp), so adding one is adding a row.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "engine/gguf/gguf.h"
#include "engine/base/result.h"

namespace wafer {

// How RoPE pairs the dimensions of a head: llama rotates adjacent pairs (2i, 2i+1),
// NeoX-style models (qwen2, starcoder2) rotate (i, i + rot_dim/2).
enum class RopeLayout { Normal, NeoX };
enum class NormKind { RmsNorm, LayerNorm };
enum class FfnKind { SwiGlu, Gelu };

// What an architecture is built from. `supported` is false for families whose metadata we
// read (for `wafer info`) but whose forward pass wafer does not implement yet.
struct ArchInfo {
  std::string_view name;  // value of general.architecture
  RopeLayout rope;
  NormKind norm;
  FfnKind ffn;
  bool qkv_bias;          // attn_q/k/v carry .bias tensors
  bool supported;
};

// The known families (llama, qwen2, starcoder2, deepseek2).
std::span<const ArchInfo> known_architectures();
const ArchInfo* find_architecture(std::string_view name);

struct RopeScaling {
  std::string type = "none";        // {arch}.rope.scaling.type: none, linear, yarn, ...
  float factor = 1.0f;              // {arch}.rope.scaling.factor (or legacy rope.scale_linear)
  uint32_t original_context = 0;    // {arch}.rope.scaling.original_context_length (0: unset)
};

struct ModelConfig {
  const ArchInfo* arch = nullptr;   // never null in a config returned by read_model_config
  std::string name;                 // general.name ("" when absent)
  uint32_t context_length = 0;      // training context
  uint32_t n_embd = 0;              // embedding_length
  uint32_t n_layer = 0;             // block_count
  uint32_t n_head = 0;              // attention.head_count
  uint32_t n_head_kv = 0;           // attention.head_count_kv (default n_head)
  uint32_t head_dim_k = 0;          // attention.key_length (default n_embd / n_head)
  uint32_t head_dim_v = 0;          // attention.value_length (default head_dim_k)
  uint32_t n_ff = 0;                // feed_forward_length
  uint32_t n_rot = 0;               // rope.dimension_count (default head_dim_k)
  float rope_freq_base = 10000.0f;  // rope.freq_base
  RopeScaling rope_scaling;
  float norm_eps = 1e-5f;           // attention.layer_norm_rms_epsilon (or layer_norm_epsilon)
  uint32_t n_vocab = 0;             // tokenizer.ggml.tokens length, else token_embd (or output) rows
  bool tied_output = false;         // no output.weight: logits use token_embd.weight
};

// Reads and validates the hyper-parameters (positive sizes, heads divisible by KV heads,
// head dim consistent). Errors name the missing or bad key, or the unknown architecture.
Result<ModelConfig> read_model_config(const GgufFile& file);

// Parameter count: the elements of every tensor in the file.
uint64_t parameter_count(const GgufFile& file);

}  // namespace wafer
