// A cheap estimate of how many tokens a code model's tokenizer makes of a text, for the
// context builder's budgets. The real tokenizer lives with the engine on its own thread;
// the context is built on the loop thread for every keystroke, so it counts with this
// instead: a single pass modelled on the byte-level BPE pre-tokenizers of code models
// (Qwen2, DeepSeek-Coder, StarCoder): a word is one token per ~6 letters and takes one
// symbol before it ("(item", ".job"), a digit is one token, a symbol run one token per ~2
// characters and takes the line breaks after it (";\n"), a whitespace run one token (a
// single space before a word is part of the word; a break plus indentation is two), a
// non-ASCII character one token. Within 15% of Qwen2's count on the project's own files.
// tests/server/test_token_estimate.cpp checks it against the Qwen2 tokenizer on real code.
#pragma once

#include <cstddef>
#include <string_view>

namespace wafer {

size_t estimate_tokens(std::string_view text);

}  // namespace wafer
