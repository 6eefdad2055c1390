// Whether a draft model can draft for a target: speculative decoding hands the draft's token
// ids to the target unchanged, so both must mean the same thing by every id -- the same
// logits row length, the same token texts, and the same FIM markers and end-of-generation
// tokens (the draft reads the target's FIM prompt, and must stop where the target stops).
#pragma once

#include <cstddef>

#include "engine/base/result.h"
#include "engine/decode/fim_tokens.h"
#include "engine/tokenizer/tokenizer.h"

namespace wafer {

struct DraftVocab {
  size_t n_logits = 0;  // the model's logits row length (ModelConfig::n_vocab)
  const Tokenizer* tokenizer = nullptr;
  const FimTokens* fim = nullptr;
};

// An error naming the first difference; ok when the draft can draft for the target.
Status check_draft_vocab(const DraftVocab& target, const DraftVocab& draft);

}  // namespace wafer
