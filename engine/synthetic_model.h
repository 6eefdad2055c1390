// Writes small llama/qwen2-shaped GGUF models with random weights, for tests and tools that
// need a model file without downloading one. Tensor names and shapes follow llama.cpp
// (token_embd.weight, blk.N.attn_norm.weight, blk.N.attn_q.weight/.bias, attn_k, attn_v,
// attn_output, ffn_norm, ffn_gate, ffn_up, ffn_down, output_norm.weight, output.weight),
// and the file carries a tiny byte-level BPE vocabulary (`tokenizer.ggml.model` = gpt2):
// the 256 byte tokens (id = byte value, in GPT-2's byte-to-unicode spelling), a few merges,
// then Qwen2.5-style control tokens including FIM ones, then optional [PAD] fillers.
// Weights are generated row by row while writing, so a 0.5B-parameter Q8_0 file needs no
// more memory than one row.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/result.h"
#include "engine/tensor_types.h"

namespace wafer {

struct SyntheticModelSpec {
  std::string architecture = "llama";  // "llama" (no biases) or "qwen2" (q/k/v biases)
  std::string name = "wafer-synthetic";
  uint32_t n_embd = 64;
  uint32_t n_layer = 2;
  uint32_t n_head = 4;
  uint32_t n_head_kv = 2;
  uint32_t head_dim = 0;   // 0: n_embd / n_head; otherwise written as key_length/value_length
  uint32_t n_ff = 128;
  uint32_t context_length = 2048;
  float rope_freq_base = 10000.0f;
  float norm_eps = 1e-5f;
  uint32_t n_vocab = 0;    // 0: just the byte-level vocabulary; larger: padded with [PAD<id>]
  TensorType weight_type = TensorType::F32;  // the 2-D layer matrices
  TensorType embd_type = TensorType::F32;    // token_embd.weight
  TensorType output_type = TensorType::F32;  // output.weight (unless tied)
  bool tied_output = false;                  // no output.weight: logits use token_embd
  // Q4_K_M-style mix (llama.cpp's rule): attn_v and ffn_down in Q6_K on the first and last
  // eighth of the layers and every third one between, the other matrices weight_type;
  // rows whose length is not a multiple of 256 fall back (Q4_K -> Q5_0, Q6_K -> Q8_0).
  bool k_quant_mix = false;
  bool fim_metadata = true;                  // write tokenizer.ggml.fim_*_token_id keys
  std::string pre_tokenizer = "qwen2";       // tokenizer.ggml.pre
  uint64_t seed = 1;
  // Weights ~ N(0, std^2); norm weights ~ 1 + N(0, norm_std^2).
  float embd_std = 1.0f;
  float weight_std = 0.15f;
  float norm_std = 0.1f;
  float bias_std = 0.1f;
};

// The tiny vocabulary written into synthetic models.
struct SyntheticVocab {
  std::vector<std::string> tokens;   // byte tokens, merge results, control tokens, [PAD...]
  std::vector<int32_t> token_types;  // llama.cpp token types: 1 normal, 3 control, 5 unused
  std::vector<std::string> merges;   // "left right", by rank
  int32_t endoftext = -1;            // BOS = EOS = PAD, as Qwen2 has it
  int32_t fim_prefix = -1, fim_middle = -1, fim_suffix = -1, fim_pad = -1;
  int32_t repo_name = -1, file_sep = -1;
};

// The vocabulary for a spec's n_vocab (0: unpadded). Errors when n_vocab is smaller than
// the base vocabulary.
Result<SyntheticVocab> synthetic_vocab(uint32_t n_vocab);

// Writes the model. Errors on an inconsistent spec (heads not dividing, unknown
// architecture, row lengths that do not fit a quantized type) or when writing fails.
Status write_synthetic_model(const SyntheticModelSpec& spec, const std::filesystem::path& path);

}  // namespace wafer
