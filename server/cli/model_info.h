// What `wafer info` reports about a GGUF model: file, architecture and hyper-parameters,
// parameter count, tensor types and bytes per tensor group, tokenizer kind and FIM tokens.
// Built from an open GgufFile (describe_model), printed as text or JSON.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/gguf/gguf.h"
#include "engine/model/model_config.h"

namespace wafer {

struct TypeUsage {
  uint64_t tensors = 0;
  uint64_t bytes = 0;
};

// Tensors grouped by role: embeddings (token_embd), attention (blk.N.attn_*), ffn
// (blk.N.ffn_*), output (output.weight, output_norm), other.
struct TensorGroup {
  std::string name;
  uint64_t tensors = 0;
  uint64_t bytes = 0;
  uint64_t parameters = 0;
  std::map<std::string, uint64_t> types;  // type name -> tensor count
};

// FIM tokens found in a model: role ("prefix", "suffix", "middle", ...) -> id and text.
struct FimToken {
  std::string role;
  int64_t id = -1;
  std::string text;
};
struct FimReport {
  std::vector<FimToken> tokens;
  std::string source;  // where they came from, e.g. "metadata"; "" when none were found
  std::string format;  // the prompt format chosen automatically, e.g. "qwen" (engine/decode/fim_template.h)
};

// (Not named ModelInfo: engine/engine.h's wafer::ModelInfo is another type, and two class
// definitions under one name are an ODR violation — UBSan caught the linker mixing their
// inline constructors.)
struct ModelReport {
  std::string path;
  uint64_t file_size = 0;
  uint32_t gguf_version = 0;
  std::string architecture;  // general.architecture ("" when absent)
  std::optional<ModelConfig> config;
  std::string config_error;  // why config is absent
  uint64_t parameters = 0;
  uint64_t tensor_count = 0;
  std::map<std::string, TypeUsage> types;  // tensor type name -> usage
  std::vector<TensorGroup> groups;         // in the order listed above, empty ones omitted
  std::string tokenizer_model;             // tokenizer.ggml.model
  std::string tokenizer_pre;               // tokenizer.ggml.pre
  float copy_strength = 0;                 // wafer.copy_strength (engine/decode/copy_predictor.h); 0: none
  float min_confidence = -1;               // wafer.min_confidence (engine/model/gate_threshold.h); -1: none
  uint64_t n_tokens = 0;
  FimReport fim;
};

ModelReport describe_model(const GgufFile& file, const std::string& path);
std::string info_text(const ModelReport& info);
nlohmann::json info_json(const ModelReport& info);

// FIM tokens of a model (server/cli/info_fim.cpp). Tokenizer owners: this is the one place
// `wafer info` learns about FIM tokens; replace its body with the engine's FIM discovery.
FimReport describe_fim(const GgufFile& file);

}  // namespace wafer
