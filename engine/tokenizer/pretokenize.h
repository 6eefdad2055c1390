// Pre-tokenizers of byte-level BPE vocabularies: split text into the "words" that BPE then
// merges inside. Each model family's Hugging Face tokenizer uses a regex (or a sequence of
// them); these are hand-written matchers that reproduce what llama.cpp produces for the
// same `tokenizer.ggml.pre` name, including the corner cases of its custom splitters and of
// its std::regex fallback (regex_iterator semantics: unmatched text between matches is a
// piece of its own). No regex engine is involved.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/base/result.h"

namespace wafer {

enum class PreTokenizerKind {
  Default,        // llama.cpp's fallback list (gpt2 model without a known pre name)
  Gpt2,           // gpt-2, mpt, olmo, phi-2, jais, ...
  Llama3,         // llama3 / llama-bpe, dbrx, smaug-bpe, glm4 (numbers in groups of 3)
  Qwen2,          // qwen2, stablelm2, deepseek-r1-qwen, megrez (single digits)
  Starcoder,      // starcoder, refact, smollm, command-r, codeshell, exaone, minerva-7b
  DeepseekCoder,  // deepseek-coder
  DeepseekLlm,    // deepseek-llm
  Falcon,         // falcon
};

struct PreTokenizer {
  PreTokenizerKind kind = PreTokenizerKind::Default;
  bool ignore_merges = false;  // a word that is itself a token is emitted without merging
  bool add_bos = false;        // default for tokenizer.ggml.add_bos_token when absent
};

// Maps a `tokenizer.ggml.pre` value ("" means the default) to a pre-tokenizer; an error
// names values wafer does not implement.
Result<PreTokenizer> pretokenizer_from_name(std::string_view name);
const char* pretokenizer_kind_name(PreTokenizerKind kind);

// Splits `text` (any bytes; invalid UTF-8 bytes count as U+FFFD for classification) into
// consecutive pieces covering it exactly; appends them to `words` as views into `text`.
void pretokenize(PreTokenizerKind kind, std::string_view text, std::vector<std::string_view>& words);

}  // namespace wafer
