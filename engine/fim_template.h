// The fill-in-the-middle prompt template: turns the text parts of a completion request
// (extra context chunks, prefix, suffix) into the token sequence a code model expects.
// Special tokens come only from the template; user text is encoded with special-token
// parsing off, so code that happens to contain "<|fim_prefix|>" stays plain text.
//
// Order (PSM, as Qwen2.5-Coder, StarCoder and llama.cpp's /infill use it):
//   [<file_sep> extra]... <fim_prefix> prefix <fim_suffix> suffix <fim_middle>
// Kept separate from the engine so that more templates (SPM order, repository headers)
// can be added by the context work without touching generation.
#pragma once

#include <string>
#include <vector>

#include "engine/fim_tokens.h"
#include "engine/tokenizer.h"

namespace wafer {

struct FimParts {
  const std::vector<std::string>* extra = nullptr;  // chunks placed before the prefix
  std::string_view prefix;
  std::string_view suffix;
};

// The prompt tokens. Extra chunks are each introduced by the file-separator token when the
// model has one (so the model sees them as other files), else simply concatenated.
std::vector<TokenId> build_fim_prompt(const Tokenizer& tokenizer, const FimTokens& fim, const FimParts& parts);

// The same prompt cut to at most max_tokens tokens when it is longer (a window the caller
// sized by an estimate can still overflow a small model's context): extra chunks go first,
// then the suffix keeps at most a quarter of the room (cut at its end), and the prefix
// keeps its end (cut at its start: the text nearest the cursor matters most). The markers
// are always kept; `cut` (optional) is set when anything was dropped.
std::vector<TokenId> build_fim_prompt_within(const Tokenizer& tokenizer, const FimTokens& fim, const FimParts& parts,
                                             size_t max_tokens, bool* cut = nullptr);

}  // namespace wafer
