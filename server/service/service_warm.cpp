// The service's warm-up (`wafer/warm` over LSP): the editor says where the cursor is
// when a document is shown or the cursor lands somewhere new, and while the engine is idle
// it prefills the prompt a completion at that position would send, generating nothing (in
// the model's cache and in the draft model's, when there is one). The first request there
// then finds its prompt cached and prefills only what changed (the first suggestion after
// opening a file otherwise prefills the whole window, and its drafts the draft's). Background work: any request or keystroke ends it
// within one layer of the forward pass, and what it had prefilled stays cached.
#include <algorithm>

#include "server/service/completion_request.h"
#include "server/service/completion_state.h"
#include "server/service/completion_service.h"

namespace wafer {

Status CompletionService::warm(const std::string& uri, const TextPosition& position) {
  std::optional<Workspace::View> view = workspace_.get(uri);
  if (!view) return make_error("textDocument.uri: the document is not open: " + uri);
  Result<size_t> offset = offset_at(*view->snapshot, position, encoding_);
  if (!offset) return make_error("position: " + offset.error().message);
  // Only the in-process engine keeps a cache this could fill.
  if (!options_.scheduling.warm || view->out_of_sync || !options_.language_enabled(view->snapshot->language_id) ||
      scheduler_->provider() != Scheduler::Provider::kLocalEngine || !scheduler_->model_info()) {
    stats_.count("warm_skipped");
    return {};
  }
  PreparedCompletion prepared = prepare(uri, *view, *offset);
  prepared.request.should_stop = nullptr;  // nothing is generated
  prepared.request.warm_draft = true;      // idle time: the draft model's cache too
  const int64_t version = view->snapshot->version;
  submit_idle_prefill(uri, version, std::move(prepared.request),
                      {"warm_started", "warm_outcome_", "warm_ms", "warm_prefilled_tokens"});
  return {};
}

// Early prefill: a completion request waits out its debounce (the user may type on), but the
// engine is usually idle meanwhile. This prefills the request's prompt at once, as the
// warm-up does: when the debounce ends, the request queues behind it and finds its prompt
// cached, so the first token comes about a debounce sooner. A keystroke during it ends it
// within one layer (its finished chunks stay cached) and starts the next one.
void CompletionService::prefill_early(const std::string& uri, const CompletionRequest& request, int64_t version) {
  if (scheduler_->provider() != Scheduler::Provider::kLocalEngine || !scheduler_->model_info()) return;
  CompletionRequest copy = request;
  copy.should_stop = nullptr;
  copy.cancel = nullptr;  // the scheduler gives the job its own flag
  submit_idle_prefill(uri, version, std::move(copy),
                      {"early_prefill_started", "early_prefill_outcome_", "early_prefill_ms", "early_prefill_tokens"});
}

// A request that decoded without the draft model because the draft's cache was far behind
// its prompt (CompletionRequest::draft_catch_up_later: another document, a jump) leaves
// the catching up to idle time: the same prompt again, prefill-only, with the draft's
// cache (the model's holds the prompt already). The next request there drafts at once.
void CompletionService::catch_up_draft(const CompletionState& st) {
  if (workspace_.version(st.uri) != st.version) return;  // edited meanwhile: a newer request will see
  CompletionRequest r = st.request;
  r.should_stop = nullptr;
  r.cancel = nullptr;  // the scheduler gives the job its own flags
  r.stop_draft = nullptr;
  r.warm_draft = true;
  r.draft_catch_up_later = false;
  r.first_token_budget_ms = 0;  // idle time: the whole prompt, as a warm-up prefills it
  submit_idle_prefill(st.uri, st.version, std::move(r),
                      {"draft_catch_up_started", "draft_catch_up_outcome_", "draft_catch_up_ms", "draft_catch_up_tokens"});
}

// A prefill-only background job: any request or keystroke ends it within one layer of the
// forward pass. One key for all documents and both kinds: only the latest is worth the
// engine's time (flipping through buffers must not queue a warm-up per buffer).
void CompletionService::submit_idle_prefill(const std::string& uri, int64_t version, CompletionRequest request,
                                    const IdlePrefillStats& names) {
  Scheduler::Job job;
  job.key = "warm";
  job.background = true;
  job.request = std::move(request);
  job.request.prefill_only = true;
  job.still_current = [this, uri, version] { return workspace_.version(uri) == version; };
  job.on_done = [this, names](Scheduler::JobResult r) {
    stats_.count(std::string(names.outcome_prefix) + to_string(r.outcome));
    log_.debug(std::string(names.started) + " -> " + to_string(r.outcome) + ": reused " +
               std::to_string(r.timings.tokens_reused) + ", prefilled " + std::to_string(r.timings.tokens_prefilled) +
               " tokens in " + std::to_string(static_cast<int>(r.timings.prefill_ms)) + " ms, suffix cut " +
               std::to_string(r.timings.budget_cut_tokens));
    count_prefilled_parts(r.timings);
    if (r.outcome != Scheduler::Outcome::kDone) return;
    stats_.record(names.ms, r.engine_ms);
    if (r.timings.draft_ms > 0) stats_.record("warm_draft_ms", r.timings.draft_ms);  // of it, the draft model's
    stats_.count(names.tokens, static_cast<uint64_t>(std::max(0, r.timings.tokens_prefilled)));
  };
  stats_.count(names.started);
  scheduler_->submit(std::move(job));
}

void CompletionService::count_prefilled_parts(const Timings& t) {
  const Timings::PromptParts& p = t.prefilled_parts;
  for (auto [name, n] : {std::pair{"prefilled_part_extra", p.extra}, {"prefilled_part_prefix", p.prefix},
                         {"prefilled_part_suffix", p.suffix}, {"prefilled_part_frame", p.frame}})
    if (n > 0) stats_.count(name, static_cast<uint64_t>(n));
}

}  // namespace wafer
