// The service's ahead-of-cursor decoding: once a suggestion is answered, the engine, idle
// until the next keystroke, decodes what it would suggest after the suggestion is
// accepted: the document with the suggestion inserted, its context built and its mode
// decided as a request there would, within `aheadTokens`. The result becomes the
// continuation of the typing-through entry (typing_cache.h), so the request that follows
// an accept (or accepting the suggestion line by line up to its end) is answered without
// the engine. The work is a background job: any keystroke in the document or any other
// request ends it at the engine's next cancellation check.
#include "server/service/completion_state.h"
#include "server/prompt/confidence_gate.h"
#include "server/prompt/filters.h"
#include "server/service/completion_request.h"
#include "server/service/completion_service.h"
#include "server/prompt/stop_rules.h"

namespace wafer {

std::string CompletionService::ahead_key(const std::string& uri) { return "ahead\n" + uri; }

void CompletionService::start_ahead(const std::shared_ptr<CompletionState>& st) {
  if (options_.scheduling.ahead_tokens <= 0 || st->shown.empty() || st->provider != Scheduler::Provider::kLocalEngine) return;
  if (workspace_.version(st->uri) != st->version) return;  // edited meanwhile: not what the user will accept
  const std::string_view text(st->snapshot->text);
  const std::string_view before = text.substr(0, st->offset), after = text.substr(st->offset);
  const ByteEdit edit = insertion_edit(text, st->offset, st->shown);
  auto accepted = make_snapshot(st->uri, st->snapshot->language_id, st->version,
                                std::string(before) + st->shown + std::string(after));
  SharedTree tree = st->language ? parse_edited(*st->language, st->tree.get(), edit, accepted->text) : nullptr;
  const grammars::LanguageRules* rules = st->language ? grammars::language_rules(st->language->name) : nullptr;
  FimContext ctx = build_context(*accepted, tree.get(), rules, st->offset + st->shown.size(), st->window);
  const Mode mode = decide_mode(ctx.facts);
  auto facts = std::make_shared<const CursorFacts>(std::move(ctx.facts));

  Scheduler::Job job;
  job.key = ahead_key(st->uri);
  job.background = true;
  job.request = std::move(ctx.request);
  // The same extra context and names as the request, so the engine's cache holds the
  // prompt up to the old cursor and only the suggestion and the suffix are new.
  job.request.extra = st->request.extra;
  job.request.file_path = st->request.file_path;
  job.request.repo_name = st->request.repo_name;
  job.request.line_comment = st->request.line_comment;
  job.request.max_tokens = options_.scheduling.ahead_tokens;
  job.request.should_stop = completion_stop_rule(facts, mode);
  job.still_current = [this, uri = st->uri, version = st->version] { return workspace_.version(uri) == version; };
  job.on_done = [this, st, facts, mode](Scheduler::JobResult r) {
    stats_.count(std::string("ahead_outcome_") + to_string(r.outcome));
    if (r.outcome != Scheduler::Outcome::kDone) return;
    stats_.record("ahead_ms", r.engine_ms);
    const std::string_view text(st->snapshot->text);
    Postprocessed pp = postprocess(r.text, *facts, mode);
    count_filters(pp, "ahead_");
    // Shown without a request when the user types on: gated as an automatic request is.
    if (below_confidence(shown_confidence(r.timings.confidence, pp.text), gate_threshold())) {
      stats_.count("ahead_held_back_low_confidence");
      return;
    }
    if (typing_.extend(st->uri, text.substr(0, st->offset), text.substr(st->offset), st->shown, std::move(pp.text)))
      stats_.count("ahead_prepared");
  };
  stats_.count("ahead_started");
  scheduler_->submit(std::move(job));
}

}  // namespace wafer
