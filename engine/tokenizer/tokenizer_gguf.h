// Builds a Tokenizer from a GGUF file's tokenizer.ggml.* metadata (the keys llama.cpp's
// convert_hf_to_gguf.py writes).
#pragma once

#include "engine/gguf/gguf.h"
#include "engine/base/result.h"
#include "engine/tokenizer/tokenizer.h"

namespace wafer {

// Reads tokenizer.ggml.{model,pre,tokens,scores,token_type,merges,*_token_id,add_*} and
// general.name. Errors name the key.
Result<VocabData> vocab_from_gguf(const GgufFile& file);
Result<Tokenizer> tokenizer_from_gguf(const GgufFile& file);

// One line describing the tokenizer for `wafer info`, e.g.
// "byte-level BPE (gpt2, pre qwen2), 151936 tokens, 151387 merges".
std::string describe_tokenizer(const Tokenizer& tokenizer);

}  // namespace wafer
