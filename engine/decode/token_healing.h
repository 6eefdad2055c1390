// Token healing: when the cursor sits inside a word (or right after indentation), the
// prompt's prefix ends with a token the model rarely saw at that place in training (`retu`
// split off `return`; `   ` without the ` return` that Qwen's tokenizer would have merged).
// The engine takes that last prefix token off the prompt and makes the first generated
// token(s) reproduce its bytes (the "healed bytes"): each of them is chosen only among
// ordinary tokens whose bytes start with what remains of the healed bytes, or are a
// non-empty start of it. The caller sees only the text after the healed bytes, which are
// already in the document.
//
// Choosing among those tokens needs the set fast: TokenHealer sorts the ordinary tokens by
// their bytes once (at load), so the tokens that start with `rest` are one contiguous range
// (two binary searches) and the tokens that are a start of `rest` are one lookup per length.
#pragma once

#include <string_view>
#include <vector>

#include "engine/tokenizer/tokenizer.h"

namespace wafer {

// Ordinary tokens: normal vocabulary entries and byte tokens with bytes to show -- never
// control, unknown, unused or user-defined ones (those are matched by name, not by bytes).
bool is_ordinary_token(const Tokenizer& tokenizer, TokenId id);

// The bytes healing would regenerate for `id` as the prompt's last prefix token, or ""
// when healing does not apply to it: not ordinary, or not complete valid UTF-8 (a token
// ending inside a character is left alone -- simple and safe).
std::string_view healable_bytes(const Tokenizer& tokenizer, TokenId id);

class TokenHealer {
 public:
  // Indexes the tokenizer's ordinary tokens (the tokenizer must outlive the healer).
  explicit TokenHealer(const Tokenizer& tokenizer);

  // The ordinary tokens whose bytes start with `rest` or are a non-empty start of it, in
  // no particular order; `out` is cleared first. Empty `rest`: no tokens.
  void allowed(std::string_view rest, std::vector<TokenId>& out) const;

  size_t indexed() const { return sorted_.size(); }

 private:
  std::string_view bytes(TokenId id) const { return tok_->token_bytes(id); }

  const Tokenizer* tok_;
  std::vector<TokenId> sorted_;  // the ordinary tokens, by their bytes (then by id)
};

// The same set by a scan of the whole vocabulary: the reference for tests, and the
// baseline the index is measured against (bench/tokenize).
void allowed_by_scan(const Tokenizer& tokenizer, std::string_view rest, std::vector<TokenId>& out);

}  // namespace wafer
