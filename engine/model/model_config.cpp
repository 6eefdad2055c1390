#include "engine/model/model_config.h"

#include <array>

namespace wafer {
namespace {

// One row per family. RoPE layouts follow llama.cpp's LLAMA_ROPE_TYPE_NORM / _NEOX choice per
// architecture; starcoder2 and deepseek2 are read for `wafer info` but not run yet.
constexpr std::array<ArchInfo, 4> kArchitectures{{
    {"llama", RopeLayout::Normal, NormKind::RmsNorm, FfnKind::SwiGlu, false, true},
    {"qwen2", RopeLayout::NeoX, NormKind::RmsNorm, FfnKind::SwiGlu, true, true},
    {"starcoder2", RopeLayout::NeoX, NormKind::LayerNorm, FfnKind::Gelu, true, false},
    {"deepseek2", RopeLayout::Normal, NormKind::RmsNorm, FfnKind::SwiGlu, false, false},
}};

// Reads an optional key into `out`; a present key of the wrong type is an error.
template <typename T, typename Getter>
Status optional_key(const GgufFile& f, const std::string& key, T& out, Getter get) {
  if (!f.has(key)) return {};
  auto v = (f.*get)(key);
  if (!v) return v.error();
  out = static_cast<T>(*v);
  return {};
}

Error bad(const std::string& key, const std::string& why) {
  return make_error("model: " + key + " " + why);
}

}  // namespace

std::span<const ArchInfo> known_architectures() { return kArchitectures; }

const ArchInfo* find_architecture(std::string_view name) {
  for (const ArchInfo& a : kArchitectures)
    if (a.name == name) return &a;
  return nullptr;
}

Result<ModelConfig> read_model_config(const GgufFile& f) {
  ModelConfig c;
  auto arch_name = f.get_string("general.architecture");
  if (!arch_name) return arch_name.error();
  c.arch = find_architecture(*arch_name);
  if (!c.arch) {
    std::string known;
    for (const ArchInfo& a : kArchitectures) known += (known.empty() ? "" : ", ") + std::string(a.name);
    return make_error("model: unsupported architecture '" + std::string(*arch_name) + "' (known: " + known + ")");
  }
  const std::string p = std::string(*arch_name) + ".";
  if (f.has("general.name")) {
    auto n = f.get_string("general.name");
    if (!n) return n.error();
    c.name = *n;
  }

  for (auto [key, field] : std::array<std::pair<const char*, uint32_t*>, 5>{{
           {"context_length", &c.context_length},
           {"embedding_length", &c.n_embd},
           {"block_count", &c.n_layer},
           {"feed_forward_length", &c.n_ff},
           {"attention.head_count", &c.n_head},
       }}) {
    auto v = f.get_u32(p + key);
    if (!v) return v.error();
    if (*v == 0) return bad(p + key, "is 0");
    *field = *v;
  }
  c.n_head_kv = c.n_head;
  if (Status s = optional_key(f, p + "attention.head_count_kv", c.n_head_kv, &GgufFile::get_u32); !s) return s.error();
  if (c.n_head_kv == 0 || c.n_head % c.n_head_kv != 0)
    return bad(p + "attention.head_count_kv", std::to_string(c.n_head_kv) + " does not divide head_count " +
                                                  std::to_string(c.n_head));
  if (!f.has(p + "attention.key_length") && c.n_embd % c.n_head != 0)
    return bad(p + "embedding_length", std::to_string(c.n_embd) + " is not a multiple of head_count " +
                                           std::to_string(c.n_head) + " and attention.key_length is absent");
  c.head_dim_k = c.n_embd / c.n_head;
  if (Status s = optional_key(f, p + "attention.key_length", c.head_dim_k, &GgufFile::get_u32); !s) return s.error();
  c.head_dim_v = c.head_dim_k;
  if (Status s = optional_key(f, p + "attention.value_length", c.head_dim_v, &GgufFile::get_u32); !s) return s.error();
  if (c.head_dim_k == 0 || c.head_dim_v == 0) return bad(p + "attention.key_length", "gives a head dim of 0");
  c.n_rot = c.head_dim_k;
  if (Status s = optional_key(f, p + "rope.dimension_count", c.n_rot, &GgufFile::get_u32); !s) return s.error();
  if (c.n_rot > c.head_dim_k || c.n_rot % 2 != 0)
    return bad(p + "rope.dimension_count", std::to_string(c.n_rot) + " is odd or larger than the head dim " +
                                               std::to_string(c.head_dim_k));

  if (Status s = optional_key(f, p + "rope.freq_base", c.rope_freq_base, &GgufFile::get_f32); !s) return s.error();
  if (!(c.rope_freq_base > 0)) return bad(p + "rope.freq_base", "must be positive");
  if (f.has(p + "rope.scaling.type")) {
    auto t = f.get_string(p + "rope.scaling.type");
    if (!t) return t.error();
    c.rope_scaling.type = *t;
  }
  if (Status s = optional_key(f, p + "rope.scale_linear", c.rope_scaling.factor, &GgufFile::get_f32); !s) return s.error();
  if (f.has(p + "rope.scale_linear") && c.rope_scaling.type == "none") c.rope_scaling.type = "linear";
  if (Status s = optional_key(f, p + "rope.scaling.factor", c.rope_scaling.factor, &GgufFile::get_f32); !s) return s.error();
  if (Status s = optional_key(f, p + "rope.scaling.original_context_length", c.rope_scaling.original_context,
                              &GgufFile::get_u32); !s)
    return s.error();

  const std::string eps_key =
      p + (c.arch->norm == NormKind::RmsNorm ? "attention.layer_norm_rms_epsilon" : "attention.layer_norm_epsilon");
  if (Status s = optional_key(f, eps_key, c.norm_eps, &GgufFile::get_f32); !s) return s.error();
  if (!(c.norm_eps > 0)) return bad(eps_key, "must be positive");

  const GgufTensor* embd = f.tensor("token_embd.weight");
  if (!embd) embd = f.tensor("output.weight");
  if (f.has("tokenizer.ggml.tokens")) {
    auto n = f.get_array_length("tokenizer.ggml.tokens");
    if (!n) return n.error();
    if (*n == 0 || *n > UINT32_MAX) return bad("tokenizer.ggml.tokens", "has " + std::to_string(*n) + " entries");
    c.n_vocab = static_cast<uint32_t>(*n);
  } else if (embd && embd->n_dims == 2 && embd->ne[1] > 0 && embd->ne[1] <= UINT32_MAX) {
    c.n_vocab = static_cast<uint32_t>(embd->ne[1]);
  } else {
    return make_error(
        "model: vocabulary size unknown (no tokenizer.ggml.tokens, token_embd.weight or output.weight)");
  }
  c.tied_output = f.tensor("output.weight") == nullptr;
  return c;
}

uint64_t parameter_count(const GgufFile& file) {
  uint64_t n = 0;
  for (const GgufTensor& t : file.tensors()) n += t.n_elements;
  return n;
}

}  // namespace wafer
