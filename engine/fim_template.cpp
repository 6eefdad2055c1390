#include "engine/fim_template.h"

namespace wafer {

std::vector<TokenId> build_fim_prompt(const Tokenizer& tokenizer, const FimTokens& fim, const FimParts& parts) {
  const EncodeOptions plain{};  // no BOS, no special-token parsing of user text
  std::vector<TokenId> out;
  if (tokenizer.add_bos() && tokenizer.special().bos != kNoToken) out.push_back(tokenizer.special().bos);
  if (parts.extra) {
    for (const std::string& chunk : *parts.extra) {
      if (fim.file_sep != kNoToken) out.push_back(fim.file_sep);
      tokenizer.encode(chunk, plain, out);
    }
  }
  out.push_back(fim.prefix);
  tokenizer.encode(parts.prefix, plain, out);
  out.push_back(fim.suffix);
  tokenizer.encode(parts.suffix, plain, out);
  out.push_back(fim.middle);
  return out;
}

}  // namespace wafer
