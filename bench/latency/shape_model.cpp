#include "bench/latency/shape_model.h"

#include <filesystem>

#include "tests/support/fixtures/synthetic_model.h"

namespace wafer::bench {

Result<std::string> shape_model(const std::string& shape, const std::string& vocab, const std::string& weights) {
  if (vocab != "qwen2" && vocab != "filler") return make_error("unknown vocabulary '" + vocab + "' (qwen2 or filler)");
  if (weights != "q8_0" && weights != "q4_0" && weights != "q4_k_m")
    return make_error("unknown weights '" + weights + "' (q8_0, q4_0 or q4_k_m)");
  SyntheticModelSpec spec;
  spec.architecture = "qwen2";
  spec.name = "synthetic-qwen2.5-coder-" + shape + "-shape";
  spec.tied_output = true;
  if (shape == "0.5b") {
    spec.n_embd = 896, spec.n_layer = 24, spec.n_head = 14, spec.n_head_kv = 2, spec.n_ff = 4864;
  } else if (shape == "1.5b") {
    spec.n_embd = 1536, spec.n_layer = 28, spec.n_head = 12, spec.n_head_kv = 2, spec.n_ff = 8960;
  } else if (shape == "3b") {
    spec.n_embd = 2048, spec.n_layer = 36, spec.n_head = 16, spec.n_head_kv = 2, spec.n_ff = 11008;
  } else if (shape == "7b") {
    spec.n_embd = 3584, spec.n_layer = 28, spec.n_head = 28, spec.n_head_kv = 4, spec.n_ff = 18944;
    spec.tied_output = false;  // the 7B model has its own output matrix
    spec.output_type = weights == "q8_0" ? TensorType::Q8_0 : TensorType::Q6_K;
  } else {
    return make_error("unknown shape '" + shape + "' (0.5b, 1.5b, 3b or 7b)");
  }
  const auto path =
      std::filesystem::temp_directory_path() / ("wafer-typing-" + shape + "-" + vocab + "-vocab-" + weights + ".gguf");
  if (std::filesystem::exists(path)) return path.string();
  if (vocab == "qwen2") {
    spec.vocabulary_from = WAFER_QWEN2_VOCAB;
  } else {
    spec.n_vocab = 151936;
    spec.word_fillers = true;
  }
  spec.context_length = 32768;
  spec.rope_freq_base = 1e6f;
  spec.norm_eps = 1e-6f;
  if (weights == "q8_0") {
    spec.weight_type = spec.embd_type = TensorType::Q8_0;
  } else if (weights == "q4_0") {
    spec.weight_type = spec.embd_type = TensorType::Q4_0;
  } else {  // llama.cpp's Q4_K_M: Q4_K matrices, some of them Q6_K, a Q6_K embedding
    spec.weight_type = TensorType::Q4_K;
    spec.embd_type = TensorType::Q6_K;
    spec.k_quant_mix = true;
  }
  const auto tmp = path.string() + ".part";
  if (Status s = write_synthetic_model(spec, tmp); !s) return s.error();
  std::filesystem::rename(tmp, path);
  return path.string();
}

}  // namespace wafer::bench
