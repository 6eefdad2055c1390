// A loaded model: the GGUF file (mapped), its hyper-parameters, and every weight bound to
// its role with shape and type checked against the architecture's weight table (arch.h).
// Matrices are packed for a kernel backend once here; vectors (norm weights, biases) are
// read as floats. Loading never aborts: a missing tensor, a wrong shape or an unsupported
// type is an error that names the tensor.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "engine/gguf/gguf.h"
#include "engine/kernels/kernels.h"
#include "engine/model/model_config.h"
#include "engine/base/result.h"

namespace wafer {

struct LayerWeights {
  std::vector<float> attn_norm;                // (n_embd)
  kernels::PackedMatrix wq;                    // (n_head * head_dim_k, n_embd)
  kernels::PackedMatrix wk;                    // (n_head_kv * head_dim_k, n_embd)
  kernels::PackedMatrix wv;                    // (n_head_kv * head_dim_v, n_embd)
  std::vector<float> bq, bk, bv;               // biases (qwen2) or empty
  kernels::PackedMatrix wo;                    // (n_embd, n_head * head_dim_v)
  std::vector<float> ffn_norm;                 // (n_embd)
  kernels::PackedMatrix w_gate;                // (n_ff, n_embd)
  kernels::PackedMatrix w_up;                  // (n_ff, n_embd)
  kernels::PackedMatrix w_down;                // (n_embd, n_ff)
};

// How a model is loaded.
struct ModelLoadOptions {
  // Q4_0 or Q5_0: matrices stored with more bytes per weight than that (Q8_0, F16, Q6_K ...)
  // are requantized to it (requantize.h): for a draft model, which then drafts in about
  // half (Q4_0) or two thirds (Q5_0) of the time of a Q8_0 one. The token embedding rows are
  // read as stored. F32 (the default): every matrix as stored.
  TensorType requantize_to = TensorType::F32;
};

class Model {
 public:
  // Opens and binds a GGUF file. Errors start with the path. With a pool, every matrix is
  // repacked by the threads that will multiply it (Backend::pack), the pool the forward
  // passes then use.
  static Result<std::unique_ptr<Model>> load(const std::filesystem::path& path,
                                             const kernels::Backend& backend = kernels::default_backend(),
                                             ThreadPool* pool = nullptr, const ModelLoadOptions& options = {});
  // Binds an already open file (tests build files in memory).
  static Result<std::unique_ptr<Model>> bind(GgufFile file,
                                             const kernels::Backend& backend = kernels::default_backend(),
                                             ThreadPool* pool = nullptr, const ModelLoadOptions& options = {});

  const ModelConfig& config() const { return config_; }
  const GgufFile& file() const { return file_; }
  const kernels::Backend& backend() const { return *backend_; }

  // Token embedding lookup (ggml get_rows): row `token` of token_embd, dequantized.
  // `token` must be in [0, n_vocab).
  void embed(int32_t token, float* out) const;

  // Locks into RAM (mlock) the bytes a forward pass reads: every weight matrix as its
  // kernel reads it and the token embedding rows. Returns the bytes locked, or why not.
  Result<uint64_t> lock_in_ram() const;

  const std::vector<LayerWeights>& layers() const { return layers_; }
  const std::vector<float>& output_norm() const { return output_norm_; }
  const kernels::PackedMatrix& output() const { return output_; }  // (n_vocab, n_embd)
  // Row `token` of the output matrix as the file stores it (the embedding rows when the
  // output is tied to them), dequantized: the exact weights of one logit, read without the
  // packed copy. `token` must be in [0, n_vocab).
  void output_row(int32_t token, float* out) const;
  // How many matrices were requantized at load (ModelLoadOptions::requantize_to).
  int requantized_matrices() const { return requantized_; }

 private:
  explicit Model(GgufFile file) : file_(std::move(file)) {}

  GgufFile file_;
  ModelConfig config_;
  const kernels::Backend* backend_ = nullptr;
  kernels::MatrixView token_embd_;
  std::vector<float> output_norm_;
  kernels::PackedMatrix output_;
  kernels::MatrixView output_rows_;  // the output matrix in the file (token_embd_ when tied)
  std::vector<LayerWeights> layers_;
  int requantized_ = 0;
};

}  // namespace wafer
