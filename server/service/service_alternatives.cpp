// The service's alternatives: after the greedy suggestion of an invoked inline request, up
// to `alternatives - 1` sampled runs, one after another on the engine, then one reply
// with every distinct suggestion (server/service/alternatives.h). Later runs reuse the engine's
// cached prompt (the same session and prompt), so each costs about its decode time.
#include <algorithm>

#include "server/service/completion_state.h"
#include "server/prompt/filters.h"
#include "server/service/completion_service.h"
#include "server/prompt/stop_rules.h"

namespace wafer {

void CompletionService::run_alternative(const std::shared_ptr<CompletionState>& st, int index) {
  if (index >= options_.alternatives.count) return finish_alternatives(st);
  Scheduler::Job job;
  job.key = st->uri;  // a newer request for the document ends the run
  job.request =
      alternative_request(st->request, index, options_.alternatives.temperature, options_.alternatives.top_p);
  // An edit since the request makes more alternatives pointless: reply with what there is.
  job.still_current = [this, uri = st->uri, version = st->version] { return workspace_.version(uri) == version; };
  job.on_done = [this, st, index](Scheduler::JobResult r) {
    stats_.count(std::string("alternative_outcome_") + to_string(r.outcome));
    switch (r.outcome) {
      case Scheduler::Outcome::kDone: {
        stats_.record("alternative_ms", r.engine_ms);
        // The prompt is the greedy run's: the engine's cache should leave ~1 token to prefill.
        stats_.count("alternative_tokens_prefilled", static_cast<uint64_t>(std::max(0, r.timings.tokens_prefilled)));
        st->alternatives_ms += r.engine_ms;
        Postprocessed pp = postprocess(r.text, *st->facts, st->mode);
        count_filters(pp, "alternative_");
        if (!st->suggestions.add(std::move(pp.text))) stats_.count("alternatives_dropped");
        return run_alternative(st, index + 1);
      }
      case Scheduler::Outcome::kCancelled: {  // cancel() or shutdown
        CompletionAnswer a;
        a.outcome = CompletionAnswer::Outcome::kCancelled;
        answer(st, std::move(a));
        return;
      }
      default:  // superseded, stale or failed: the suggestions so far are still right
        return finish_alternatives(st);
    }
  };
  st->current_job = scheduler_->submit(std::move(job));
}

void CompletionService::finish_alternatives(const std::shared_ptr<CompletionState>& st) {
  if (st->answered) return;
  if (st->cost) st->cost->alternatives_ms = st->alternatives_ms;
  stats_.count("alternatives_returned", st->suggestions.size());
  answer(st, suggestions_answer(*st));
  if (st->draft_behind) catch_up_draft(*st);
  start_ahead(st);
}

}  // namespace wafer
