#include "engine/tokenizer/tokenizer_gguf.h"

namespace wafer {
namespace {

Status read_id(const GgufFile& f, std::string_view key, std::optional<int64_t>& out) {
  if (!f.has(key)) return {};
  Result<int64_t> v = f.get_i64(key);
  if (!v) return v.error();
  out = *v;
  return {};
}

Status read_flag(const GgufFile& f, std::string_view key, std::optional<bool>& out) {
  if (!f.has(key)) return {};
  Result<bool> v = f.get_bool(key);
  if (!v) return v.error();
  out = *v;
  return {};
}

}  // namespace

Result<VocabData> vocab_from_gguf(const GgufFile& f) {
  VocabData d;
  Result<std::string_view> model = f.get_string("tokenizer.ggml.model");
  if (!model) return make_error("no tokenizer in this model: " + model.error().message);
  d.model = std::string(*model);
  if (f.has("tokenizer.ggml.pre")) {
    Result<std::string_view> pre = f.get_string("tokenizer.ggml.pre");
    if (!pre) return pre.error();
    d.pre = std::string(*pre);
  }
  if (f.has("general.name")) {
    if (Result<std::string_view> name = f.get_string("general.name")) d.model_name = std::string(*name);
  }
  Result<std::span<const std::string_view>> tokens = f.get_string_array("tokenizer.ggml.tokens");
  if (!tokens) return tokens.error();
  d.tokens.assign(tokens->begin(), tokens->end());
  if (f.has("tokenizer.ggml.scores")) {
    Result<std::vector<float>> scores = f.get_f32_array("tokenizer.ggml.scores");
    if (!scores) return scores.error();
    d.scores = std::move(*scores);
  }
  if (f.has("tokenizer.ggml.token_type")) {
    Result<std::vector<int32_t>> types = f.get_i32_array("tokenizer.ggml.token_type");
    if (!types) return types.error();
    d.token_types = std::move(*types);
  }
  if (f.has("tokenizer.ggml.merges")) {
    Result<std::span<const std::string_view>> merges = f.get_string_array("tokenizer.ggml.merges");
    if (!merges) return merges.error();
    d.merges.assign(merges->begin(), merges->end());
  } else if (d.model == "gpt2") {
    return make_error("tokenizer.ggml.merges: missing (needed by a gpt2 tokenizer)");
  }

  const std::pair<std::string_view, std::optional<int64_t>*> ids[] = {
      {"tokenizer.ggml.bos_token_id", &d.bos},         {"tokenizer.ggml.eos_token_id", &d.eos},
      {"tokenizer.ggml.eot_token_id", &d.eot},         {"tokenizer.ggml.eom_token_id", &d.eom},
      {"tokenizer.ggml.unknown_token_id", &d.unk},     {"tokenizer.ggml.seperator_token_id", &d.sep},
      {"tokenizer.ggml.padding_token_id", &d.pad},     {"tokenizer.ggml.mask_token_id", &d.mask},
      {"tokenizer.ggml.fim_pre_token_id", &d.fim_pre}, {"tokenizer.ggml.fim_suf_token_id", &d.fim_suf},
      {"tokenizer.ggml.fim_mid_token_id", &d.fim_mid}, {"tokenizer.ggml.fim_pad_token_id", &d.fim_pad},
      {"tokenizer.ggml.fim_rep_token_id", &d.fim_rep}, {"tokenizer.ggml.fim_sep_token_id", &d.fim_sep},
      // Older files (CodeLlama conversions) use these names for the FIM tokens.
      {"tokenizer.ggml.prefix_token_id", &d.fim_pre},  {"tokenizer.ggml.suffix_token_id", &d.fim_suf},
      {"tokenizer.ggml.middle_token_id", &d.fim_mid},
  };
  for (const auto& [key, slot] : ids)
    if (Status s = read_id(f, key, *slot); !s) return s.error();
  if (Status s = read_flag(f, "tokenizer.ggml.add_bos_token", d.add_bos); !s) return s.error();
  if (Status s = read_flag(f, "tokenizer.ggml.add_eos_token", d.add_eos); !s) return s.error();
  if (Status s = read_flag(f, "tokenizer.ggml.add_space_prefix", d.add_space_prefix); !s) return s.error();
  return d;
}

Result<Tokenizer> tokenizer_from_gguf(const GgufFile& f) {
  Result<VocabData> d = vocab_from_gguf(f);
  if (!d) return d.error();
  return Tokenizer::create(std::move(*d));
}

std::string describe_tokenizer(const Tokenizer& t) {
  std::string s;
  if (t.kind() == TokenizerKind::ByteLevelBpe) {
    s = "byte-level BPE (gpt2, pre " + (t.pre_name().empty() ? std::string("default") : t.pre_name()) + ")";
  } else {
    s = "SentencePiece BPE (llama)";
  }
  s += ", " + std::to_string(t.n_vocab()) + " tokens";
  if (t.kind() == TokenizerKind::ByteLevelBpe) s += ", " + std::to_string(t.n_merges()) + " merges";
  return s;
}

}  // namespace wafer
