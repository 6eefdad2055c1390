// `wafer info`'s FIM section: the engine's FIM discovery (engine/decode/fim_tokens.h) over the
// model's tokenizer: metadata ids first, else the known token names of each family. When
// wafer cannot build the model's tokenizer, only the tokenizer.ggml.fim_*_token_id keys are
// read.
#include <array>
#include <utility>

#include "engine/decode/fim_template.h"
#include "engine/decode/fim_tokens.h"
#include "engine/tokenizer/tokenizer_gguf.h"
#include "server/cli/model_info.h"

namespace wafer {
namespace {

FimReport from_metadata_keys(const GgufFile& file, const std::string& why) {
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
  if (!report.tokens.empty()) report.source = "metadata; " + why;
  return report;
}

}  // namespace

FimReport describe_fim(const GgufFile& file) {
  Result<Tokenizer> tok = tokenizer_from_gguf(file);
  if (!tok) return from_metadata_keys(file, "tokenizer not supported: " + tok.error().message);
  Result<FimTokens> fim = find_fim_tokens(*tok);
  FimReport report;
  if (!fim) return report;  // printed as "no FIM tokens found"
  auto add = [&](const char* role, TokenId id) {
    if (id != kNoToken) report.tokens.push_back(FimToken{role, id, escape_piece(tok->token_text(id))});
  };
  add("prefix", fim->prefix);
  add("suffix", fim->suffix);
  add("middle", fim->middle);
  add("pad", fim->pad);
  add("repo", fim->repo);
  add("file_sep", fim->file_sep);
  report.format = fim_template_name(resolve_fim_template(FimTemplate{}, *fim, *tok, preferred_fim_order(file)));
  report.source = file.has("tokenizer.ggml.fim_pre_token_id") ? "metadata"
                                                               : "vocabulary, " + fim->family + " token names";
  return report;
}

}  // namespace wafer
