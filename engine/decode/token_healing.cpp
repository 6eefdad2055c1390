#include "engine/decode/token_healing.h"

#include <algorithm>

#include "engine/tokenizer/unicode.h"

namespace wafer {

bool is_ordinary_token(const Tokenizer& tokenizer, TokenId id) {
  const uint32_t attr = tokenizer.token_attr(id);
  constexpr uint32_t kSpecial = kAttrControl | kAttrUnknown | kAttrUnused | kAttrUserDefined;
  return (attr & (kAttrNormal | kAttrByte)) && !(attr & kSpecial) && !tokenizer.token_bytes(id).empty();
}

std::string_view healable_bytes(const Tokenizer& tokenizer, TokenId id) {
  if (!is_ordinary_token(tokenizer, id)) return {};
  const std::string_view b = tokenizer.token_bytes(id);
  return is_valid_utf8(b) ? b : std::string_view();
}

TokenHealer::TokenHealer(const Tokenizer& tokenizer) : tok_(&tokenizer) {
  // Sorted as (bytes, id) pairs: the comparisons then need no lookups through the tokenizer.
  const auto n = static_cast<TokenId>(tokenizer.n_vocab());
  std::vector<std::pair<std::string_view, TokenId>> keyed;
  keyed.reserve(static_cast<size_t>(n));
  for (TokenId id = 0; id < n; ++id)
    if (is_ordinary_token(tokenizer, id)) keyed.emplace_back(tokenizer.token_bytes(id), id);
  std::sort(keyed.begin(), keyed.end());
  sorted_.reserve(keyed.size());
  for (const auto& k : keyed) sorted_.push_back(k.second);
}

void TokenHealer::allowed(std::string_view rest, std::vector<TokenId>& out) const {
  out.clear();
  if (rest.empty()) return;
  auto first_not_below = [this](std::string_view key) {
    return std::lower_bound(sorted_.begin(), sorted_.end(), key,
                            [this](TokenId id, std::string_view k) { return bytes(id) < k; });
  };
  // Every token that starts with `rest` sorts in one run beginning at `rest` itself.
  for (auto it = first_not_below(rest); it != sorted_.end() && bytes(*it).starts_with(rest); ++it)
    out.push_back(*it);
  // Tokens that are a proper, non-empty start of `rest`: one lookup per length.
  for (size_t len = 1; len < rest.size(); ++len) {
    const std::string_view head = rest.substr(0, len);
    for (auto it = first_not_below(head); it != sorted_.end() && bytes(*it) == head; ++it) out.push_back(*it);
  }
}

void allowed_by_scan(const Tokenizer& tokenizer, std::string_view rest, std::vector<TokenId>& out) {
  out.clear();
  if (rest.empty()) return;
  const auto n = static_cast<TokenId>(tokenizer.n_vocab());
  for (TokenId id = 0; id < n; ++id) {
    if (!is_ordinary_token(tokenizer, id)) continue;
    const std::string_view b = tokenizer.token_bytes(id);
    if (b.starts_with(rest) || rest.starts_with(b)) out.push_back(id);
  }
}

}  // namespace wafer
