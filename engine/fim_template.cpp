#include "engine/fim_template.h"

#include <algorithm>

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

std::vector<TokenId> build_fim_prompt_within(const Tokenizer& tokenizer, const FimTokens& fim, const FimParts& parts,
                                             size_t max_tokens, bool* cut) {
  if (cut) *cut = false;
  std::vector<TokenId> whole = build_fim_prompt(tokenizer, fim, parts);
  if (whole.size() <= max_tokens) return whole;
  if (cut) *cut = true;
  const EncodeOptions plain{};
  std::vector<TokenId> prefix, suffix;
  tokenizer.encode(parts.prefix, plain, prefix);
  tokenizer.encode(parts.suffix, plain, suffix);
  const bool bos = tokenizer.add_bos() && tokenizer.special().bos != kNoToken;
  const size_t markers = 3 + (bos ? 1 : 0);
  const size_t room = max_tokens > markers ? max_tokens - markers : 0;
  const size_t keep_suffix = std::min(suffix.size(), std::max(room / 4, room > prefix.size() ? room - prefix.size() : 0));
  const size_t keep_prefix = std::min(prefix.size(), room - keep_suffix);
  std::vector<TokenId> out;
  if (bos) out.push_back(tokenizer.special().bos);
  out.push_back(fim.prefix);
  out.insert(out.end(), prefix.end() - static_cast<std::ptrdiff_t>(keep_prefix), prefix.end());
  out.push_back(fim.suffix);
  out.insert(out.end(), suffix.begin(), suffix.begin() + static_cast<std::ptrdiff_t>(keep_suffix));
  out.push_back(fim.middle);
  return out;
}

}  // namespace wafer
