// The in-process engine behind wafer::load_engine(): a GGUF model, its tokenizer and FIM
// tokens, a thread pool and a pool of sessions. complete() builds the FIM prompt, picks the
// request's session (its cache keeps the longest common prefix with the last prompt of the
// same document), and runs the completion (engine/decode/completion_run.h).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "engine/engine.h"
#include "engine/decode/speculation/draft_model.h"
#include "engine/decode/fim_tokens.h"
#include "engine/decode/fim_template.h"
#include "engine/decode/latency_budget.h"
#include "engine/model/model.h"
#include "engine/decode/session_pool.h"
#include "engine/runtime/threadpool.h"
#include "engine/decode/token_healing.h"
#include "engine/tokenizer/tokenizer.h"

namespace wafer {

class LocalEngine final : public Engine {
 public:
  static Result<std::unique_ptr<LocalEngine>> load(const EngineOptions& options);

  const ModelInfo& info() const override { return info_; }
  void complete(const CompletionRequest& request, const CompletionCallback& on_event) override;

  // For tools and tests: the tokenizer, and the speculation switch (0: off).
  const Tokenizer& tokenizer() const { return tokenizer_; }
  void set_max_draft(int max_draft) { options_.max_draft = max_draft; }
  void set_prompt_lookup(bool on) { options_.prompt_lookup = on; }
  // The draft model (null without one), and for benchmarks a rewrite of its proposals.
  const DraftModel* draft_model() const { return draft_.get(); }
  void set_draft_filter(DraftFilter filter) { draft_filter_ = std::move(filter); }
  // For benchmarks: called after every decode pass of the model, on the request's thread.
  void set_pass_observer(PassObserver observer) { pass_observer_ = std::move(observer); }
  void set_chunk_reuse_min(int n) { options_.chunk_reuse_min = n; }
  void set_token_healing(bool on) { options_.token_healing = on; }
  const SessionPool& sessions() const { return *sessions_; }
  // The measured costs the latency budget uses; tests set them to make budgets predictable.
  void set_forward_costs(const ForwardCosts& costs) { costs_ = costs; }

 private:
  LocalEngine(EngineOptions options, std::unique_ptr<ThreadPool> pool, std::unique_ptr<Model> model,
              Tokenizer tokenizer, FimTokens fim, FimTemplate fim_template);

  EngineOptions options_;
  std::unique_ptr<Model> model_;
  Tokenizer tokenizer_;
  FimTokens fim_;
  FimTemplate template_;
  float copy_strength_ = 0;  // the copy predictor in use (0: off)
  // The copy predictor's text beyond the prompt, tokenized again only when it changed (while
  // typing, the text before and after the window stays the same).
  struct TokenizedText {
    std::string text;
    std::vector<TokenId> tokens;
  };
  TokenizedText copy_before_, copy_after_;
  const std::vector<TokenId>& tokenized(TokenizedText& cache, const std::string& text);
  std::vector<TokenId> copy_reading(const CompletionRequest& request, std::vector<TokenId> reading);
  // The suffix's tokens (the same text on every keystroke of a line), for the budget's cut.
  TokenizedText suffix_;
  ForwardCosts costs_;  // measured prefill and decode costs, for first_token_budget_ms
  // The suffix length (bytes) that lets the request's first token come within its budget,
  // given what the session caches; nullopt when the whole prompt fits (or no budget).
  std::optional<size_t> budget_suffix(const CompletionRequest& request, const std::vector<TokenId>& prompt,
                                      const std::vector<int32_t>& cached);
  // The last budget decision per session, by prompt: the same prompt again (the request
  // after its own early prefill) gets the same cut, so it finds the cut prompt cached
  // instead of judging the cheaper remainder anew and prefilling a different suffix.
  struct BudgetChoice {
    uint64_t prompt_hash = 0;
    std::optional<size_t> keep;
  };
  std::unordered_map<std::string, BudgetChoice> budget_choices_;  // at most kMaxBudgetChoices
  static constexpr size_t kMaxBudgetChoices = 16;
  std::optional<size_t> budget_suffix_once(const CompletionRequest& request, const std::vector<TokenId>& prompt,
                                           const std::vector<int32_t>& cached);
  TokenHealer healer_;  // the ordinary tokens by their bytes, for token healing
  ModelInfo info_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<SessionPool> sessions_;
  // The draft model's weights and its drafter (after the pool and before nothing that uses
  // them: the drafter is destroyed first).
  Status load_draft();
  std::unique_ptr<Model> draft_weights_;
  std::unique_ptr<DraftModel> draft_;
  DraftFilter draft_filter_;
  PassObserver pass_observer_;
  std::mutex mu_;  // one request at a time; waiting here is the queue time
};

}  // namespace wafer
