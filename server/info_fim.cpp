// `wafer info`'s FIM section. FOR THE TOKENIZER/FIM OWNER: replace the body of
// describe_fim() with the engine's FIM discovery (metadata ids, else known names per family
// in the vocabulary) and set `source` accordingly; the printing in model_info.cpp needs no
// change. Until then this reads only the tokenizer.ggml.fim_*_token_id keys.
#include <array>
#include <utility>

#include "server/model_info.h"

namespace wafer {

FimReport describe_fim(const GgufFile& file) {
  static constexpr std::array<std::pair<const char*, const char*>, 6> kKeys{{
      {"prefix", "tokenizer.ggml.fim_pre_token_id"},
      {"suffix", "tokenizer.ggml.fim_suf_token_id"},
      {"middle", "tokenizer.ggml.fim_mid_token_id"},
      {"pad", "tokenizer.ggml.fim_pad_token_id"},
      {"repo", "tokenizer.ggml.fim_rep_token_id"},
      {"file_sep", "tokenizer.ggml.fim_sep_token_id"},
  }};
  FimReport report;
  auto tokens = file.get_string_array("tokenizer.ggml.tokens");
  for (auto [role, key] : kKeys) {
    auto id = file.get_u32(key);
    if (!id) continue;
    FimToken t{role, *id, ""};
    if (tokens && *id < tokens->size()) t.text = std::string((*tokens)[*id]);
    report.tokens.push_back(std::move(t));
  }
  if (!report.tokens.empty()) report.source = "metadata";
  return report;
}

}  // namespace wafer
