// One completion request on one session, after the prompt is tokenized: prefill the part
// of the prompt the session's cache does not already hold (in chunks, checking the cancel
// flag and the prefill budget between chunks), then decode -- greedy with speculation
// (prompt-lookup drafts, and a draft model's when there is one: whichever proposes more
// tokens), or sampled -- streaming whole-character text deltas until a stop condition,
// and finish with exactly one kDone or kError event carrying the timings. With token
// healing the first tokens are chosen among those that reproduce the healed bytes (one
// token per step, no drafts), and only the text after those bytes reaches the caller.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "engine/decode/copy_predictor.h"
#include "engine/decode/speculation/draft_model.h"
#include "engine/decode/fim_template.h"
#include "engine/types.h"
#include "engine/decode/fim_tokens.h"
#include "engine/decode/session.h"
#include "engine/decode/speculation/prompt_lookup.h"
#include "engine/decode/token_healing.h"
#include "engine/tokenizer/tokenizer.h"

namespace wafer {

struct RunSettings {
  int prefill_chunk = 64;  // tokens per prefill step: the granularity of max_prefill_ms
  int chunk_reuse_min = 0; // move cached spans of at least this many tokens (0: off)
  DraftParams draft;       // max_draft 0: no speculation
  bool prompt_lookup = true;  // prompt-lookup drafts (with max_draft > 0)
  DraftFilter draft_filter;   // benchmarks: rewrites the draft model's proposals
  PassObserver pass_observer; // benchmarks: sees every decode pass of the model
  CopyParams copy;         // strength 0: no copy predictor
};

struct RunContext {
  Session* session = nullptr;
  DraftModel* draft_model = nullptr;  // greedy speculation with a draft model (null: none)
  const Tokenizer* tokenizer = nullptr;
  const FimTokens* fim = nullptr;
  const TokenHealer* healer = nullptr;  // needed when `healed` is not empty
  std::string healed;  // token healing: bytes the first generated tokens must reproduce (not shown)
  size_t n_vocab = 0;  // the model's logits row length
  RunSettings settings;
  std::chrono::steady_clock::time_point start;  // when complete() was called
  Timings timings;                               // queue and tokenize already filled in
  std::vector<PromptPart> layout;                // the prompt's parts, for Timings::prefilled_parts
};

// Runs the request; always ends with exactly one kDone or kError event. `reading`: the
// text the copy predictor copies from, with the text before the cursor last (see
// build_fim_prompt_within); null: the prompt itself.
void run_completion(RunContext& ctx, const CompletionRequest& request, const std::vector<TokenId>& prompt,
                    const CompletionCallback& on_event, const std::vector<TokenId>* reading = nullptr);

}  // namespace wafer
