// Fill-in-the-middle tokens of a code model: the prefix/suffix/middle markers a FIM prompt
// is built from, the optional repository/file-separator/pad tokens, and the tokens that end
// a completion. Taken from the GGUF metadata (tokenizer.ggml.fim_*_token_id) when present,
// else found in the vocabulary by the names each family uses (Qwen/CodeGemma <|fim_prefix|>,
// StarCoder <fim_prefix>, DeepSeek <｜fim▁begin｜>, CodeLlama ▁<PRE>, ...).
#pragma once

#include <string>
#include <vector>

#include "engine/base/result.h"
#include "engine/tokenizer/tokenizer.h"

namespace wafer {

struct FimTokens {
  TokenId prefix = kNoToken;
  TokenId suffix = kNoToken;
  TokenId middle = kNoToken;
  TokenId pad = kNoToken;       // optional
  TokenId repo = kNoToken;      // optional: repository name marker
  TokenId file_sep = kNoToken;  // optional: separates files of extra context
  std::vector<TokenId> end_of_generation;  // ascending; EOS, EOT, <|endoftext|>, <|file_sep|>, ...
  std::string family;  // "qwen", "starcoder", "deepseek", "codellama", or "other"
};

// The model's FIM tokens, or an error saying which marker is missing (a model without FIM
// support cannot serve inline completions; the server shows the message to the user).
Result<FimTokens> find_fim_tokens(const Tokenizer& tokenizer);

// "prefix=<|fim_prefix|>(151659) suffix=... middle=..." for `wafer info`.
std::string describe_fim_tokens(const Tokenizer& tokenizer, const FimTokens& fim);

}  // namespace wafer
