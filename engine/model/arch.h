// The weights a llama/qwen2-family transformer is made of, as data: one row per tensor with
// its GGUF name, its shape in terms of the model's hyper-parameters, and when it must be
// present. Model binding (model.cpp) walks this table instead of a switch per architecture;
// a family with another tensor set (e.g. LayerNorm biases) adds rows and a condition here.
// The per-family flags themselves (RoPE layout, QKV bias, norm kind) live in ArchInfo
// (model_config.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "engine/model/model_config.h"

namespace wafer {

// What a tensor is for; model.cpp stores each role in its own field.
enum class WeightRole {
  kTokenEmbd,
  kOutputNorm,
  kOutput,
  kAttnNorm,
  kAttnQ,
  kAttnK,
  kAttnV,
  kAttnQBias,
  kAttnKBias,
  kAttnVBias,
  kAttnOut,
  kFfnNorm,
  kFfnGate,
  kFfnUp,
  kFfnDown,
};

// A dimension of a weight, resolved against a ModelConfig.
enum class Dim { kEmbd, kQ, kKV_K, kKV_V, kAttnOut, kFf, kVocab, kNone };

enum class Presence {
  kRequired,
  kIfQkvBias,     // required when the architecture has QKV biases, else ignored
  kOptional,      // output.weight: absent means tied to token_embd
};

struct WeightSpec {
  WeightRole role;
  std::string_view name;  // GGUF name; "blk.{}." is prefixed for per-layer tensors
  bool per_layer;
  Dim ne0;                // row length (input features for a matrix)
  Dim ne1;                // rows (kNone for a vector)
  Presence presence;
  bool matrix;            // multiplied through the kernels (else read as floats)
};

std::span<const WeightSpec> transformer_weights();

// The value of a symbolic dimension for a model.
uint64_t resolve_dim(Dim d, const ModelConfig& c);

// "blk.3.attn_q.weight" for a per-layer spec and layer 3, else the spec's name.
std::string weight_name(const WeightSpec& spec, int layer);

}  // namespace wafer
