// The service's completion requests, from a position to a scheduled engine job and back:
// typing-through, the debounce and the first-token budget, the prompt with the service's
// extra context, streaming, and the answer with its statistics.
#include <algorithm>
#include <chrono>
#include <optional>

#include "server/prompt/confidence_gate.h"
#include "server/prompt/filters.h"
#include "server/prompt/prompt_paths.h"
#include "server/prompt/stop_rules.h"
#include "server/prompt/token_estimate.h"
#include "server/service/completion_request.h"
#include "server/service/completion_service.h"
#include "server/service/completion_state.h"

namespace wafer {

// The extra context of a completion in one document, from the service's caches: the other
// open documents of related languages, the workspace index, the recent edits, and the
// choice kept per document while its window stays put.
class DocumentExtraContext final : public ExtraContextSource {
 public:
  DocumentExtraContext(CompletionService& service, const std::string& uri, const Workspace::View& view)
      : s_(service), uri_(uri), view_(view) {}

  std::vector<ExtraSource> others(const std::vector<std::string>& names) override {
    std::vector<ExtraSource> sources;
    for (const std::string& other : s_.workspace_.uris()) {  // sorted: a stable order
      if (other == uri_ || !s_.options_.open_buffers || s_.excluded(other)) continue;
      std::optional<Workspace::View> v = s_.workspace_.get(other);
      if (!v || !v->language || !related_languages(v->language->name, view_.language->name)) continue;
      sources.push_back({prompt_path(s_.root_uri_, other), &s_.definitions(other, *v), 0, 0, false});
    }
    // Then the files of the workspace index that define a name used here (by path).
    for (ExtraSource& src : s_.index_sources(names, view_.language->name)) sources.push_back(std::move(src));
    return sources;
  }

  const std::vector<Definition>* own_definitions() override { return &s_.definitions(uri_, view_); }

  std::vector<ContextFile> recent(std::string_view window, int budget) override {
    return s_.recent_.for_prompt(window, budget, [this](const std::string& u) { return prompt_path(s_.root_uri_, u); });
  }

  std::vector<ContextFile> keep(size_t window_begin, int budget, const ChooseExtra& choose) override {
    std::vector<std::pair<std::string, int64_t>> others;  // the documents it may draw on, and their versions
    for (const std::string& other : s_.workspace_.uris()) {
      if (other == uri_ || !s_.options_.open_buffers || s_.excluded(other)) continue;
      std::optional<Workspace::View> v = s_.workspace_.get(other);
      if (v && v->language && related_languages(v->language->name, view_.language->name))
        others.emplace_back(other, v->snapshot->version);
    }
    if (s_.index_ && s_.options_.index.enabled) others.emplace_back("", s_.index_generation_);  // "": the index
    if (s_.options_.prompt.recent_tokens > 0)  // " recent": the ring of recent edits
      others.emplace_back(" recent", static_cast<int64_t>(s_.recent_.generation()));
    auto it = s_.extra_choice_.find(uri_);
    if (it != s_.extra_choice_.end() && it->second.window_begin == window_begin && it->second.budget_tokens == budget &&
        it->second.others == others)
      return it->second.chunks;
    CompletionService::ExtraChoice& choice = s_.extra_choice_[uri_];
    choice = {window_begin, budget, std::move(others), choose()};
    return choice.chunks;
  }

 private:
  CompletionService& s_;
  const std::string& uri_;
  const Workspace::View& view_;
};

const std::vector<Definition>& CompletionService::definitions(const std::string& uri, const Workspace::View& view) {
  Definitions& d = definitions_[uri];
  if (d.version != view.snapshot->version) {
    d.version = view.snapshot->version;
    d.list.clear();
    if (const grammars::LanguageRules* rules = view.language ? grammars::language_rules(view.language->name) : nullptr)
      d.list = find_definitions(*view.snapshot, view.tree.get(), *rules);
  }
  return d.list;
}

PreparedCompletion CompletionService::prepare(const std::string& uri, const Workspace::View& view,
                                                       size_t offset) {
  DocumentExtraContext extra(*this, uri, view);
  CompletionSite site;
  site.options = &options_.prompt;
  site.model = scheduler_->model_info();
  site.root_uri = root_uri_;
  site.uri = uri;
  site.view = &view;
  site.offset = offset;
  site.extra = excluded(uri) ? nullptr : &extra;  // an excluded document: its own text alone
  PreparedCompletion p = prepare_completion(site);
  if (!p.request.extra.empty()) stats_.count("extra_context");
  // Estimated tokens per source of extra context (sums over requests: divide by inline_requests).
  for (const ContextFile& f : p.request.extra)
    if (*f.source) stats_.count(std::string("extra_tokens_") + f.source, estimate_tokens(f.text));
  return p;
}

Result<CompletionService::RequestId> CompletionService::complete(const CompletionQuery& query,
                                                                 std::shared_ptr<CompletionReceiver> receiver) {
  return start_completion(query, std::move(receiver), next_request_++);
}

void CompletionService::cancel(RequestId id) {
  for (WaitingForModel& w : waiting_for_model_)
    if (w.id == id) {
      std::shared_ptr<CompletionReceiver> receiver = std::move(w.receiver);
      std::erase_if(waiting_for_model_, [id](const WaitingForModel& x) { return x.id == id; });
      CompletionAnswer a;
      a.outcome = CompletionAnswer::Outcome::kCancelled;
      receiver->answer(std::move(a));
      return;
    }
  auto it = requests_.find(id);
  if (it == requests_.end()) return;
  if (std::shared_ptr<CompletionState> st = it->second.lock()) scheduler_->cancel(st->current_job);
}

void CompletionService::answer(const std::shared_ptr<CompletionState>& st, CompletionAnswer a) {
  if (st->answered) return;
  st->answered = true;
  requests_.erase(st->id);
  a.cursor = st->cursor;
  st->receiver->answer(std::move(a));
}

Result<CompletionService::RequestId> CompletionService::start_completion(const CompletionQuery& query,
                                                                         std::shared_ptr<CompletionReceiver> receiver,
                                                                         RequestId id) {
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  const bool inline_kind = query.kind == CompletionKind::kInline;
  const std::string& uri = query.uri;
  std::optional<Workspace::View> view = workspace_.get(uri);
  if (!view) return make_error("textDocument.uri: the document is not open: " + uri);
  Result<size_t> offset = offset_at(*view->snapshot, query.position, encoding_);
  if (!offset) return make_error("position: " + offset.error().message);
  stats_.count(inline_kind ? "inline_requests" : "completion_requests");
  if (excluded(uri)) stats_.count("excluded_documents_requests");
  // The cursor as the client should see it in answers (a character past the line end was
  // clamped to the line end).
  const TextPosition cursor = position_at(*view->snapshot, *offset, encoding_);
  const char* refused = nullptr;
  if (view->out_of_sync) refused = "refused_out_of_sync";
  else if (!options_.language_enabled(view->snapshot->language_id)) refused = "refused_language";
  else if (!scheduler_->model_info() && !model_loading_) refused = "refused_no_model";
  else if (excluded(uri) && !excluded_may_complete()) refused = "refused_excluded";
  if (refused) {
    stats_.count(refused);
    CompletionAnswer a;
    a.cursor = cursor;
    receiver->answer(std::move(a));
    return id;
  }
  if (model_loading_ && !scheduler_->model_info()) {
    stats_.count("waited_for_model");
    for (WaitingForModel& w : waiting_for_model_)
      if (w.query.uri == uri) {  // superseded by this one
        CompletionAnswer a;
        a.outcome = CompletionAnswer::Outcome::kSuperseded;
        std::shared_ptr<CompletionReceiver> older = std::move(w.receiver);
        w = {id, query, std::move(receiver)};
        older->answer(std::move(a));
        return id;
      }
    waiting_for_model_.push_back({id, query, std::move(receiver)});
    return id;
  }

  int64_t version = view->snapshot->version;
  const std::shared_ptr<const Snapshot> snapshot = view->snapshot;
  const std::string_view before = std::string_view(snapshot->text).substr(0, *offset);
  const std::string_view after = std::string_view(snapshot->text).substr(*offset);

  // Alternatives for an invoked request (remote backends decode greedily whatever they are
  // asked, so theirs would repeat); such a request skips typing-through, which has one.
  const bool alternatives = query.trigger == Trigger::kInvoked && inline_kind && options_.alternatives.count > 1 &&
                            scheduler_->provider() == Scheduler::Provider::kLocalEngine;
  // Typing-through: the user typed the head of the last suggestion; no debounce, no engine.
  // Past its end, the continuation decoded ahead of the cursor answers (service_ahead.cpp).
  std::optional<std::string> rest;
  bool ahead = false;
  if (!alternatives) rest = typing_.lookup(uri, before, after, &ahead);
  if (rest) {
    scheduler_->supersede(uri);
    CompletionAnswer a;
    a.cursor = cursor;
    a.suggestions = {*rest};
    a.served_by = ahead ? "ahead" : "typing";
    receiver->answer(std::move(a));
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    stats_.count(ahead ? "ahead_hits" : "typing_through");
    stats_.record(ahead ? "ahead_answer_ms" : "typing_through_ms", ms);
    return id;
  }
  Scheduler::Job job;
  job.key = uri;
  job.debounce_ms = 0;
  if (query.trigger != Trigger::kInvoked) {
    // Debounce from the last keystroke, not from the request.
    double since_edit = 1e9;
    if (auto e = rhythm_.find(uri); e != rhythm_.end() && e->second.seen())
      since_edit = std::chrono::duration<double, std::milli>(t0 - e->second.last()).count();
    job.debounce_ms = std::max(0, options_.scheduling.debounce_ms - static_cast<int>(since_edit));
  }
  PreparedCompletion prepared = prepare(uri, *view, *offset);
  const Mode mode = prepared.mode;
  auto st = std::make_shared<CompletionState>();
  st->id = id;
  st->uri = uri;
  st->version = version;
  st->cursor = cursor;
  st->inline_kind = inline_kind;
  st->alternatives = alternatives;
  st->gated = query.trigger != Trigger::kInvoked && gate_threshold() > 0;
  st->t0 = t0;
  st->snapshot = snapshot;
  st->offset = *offset;
  st->language = view->language;
  st->tree = view->tree;
  st->facts = prepared.facts;
  st->mode = mode;
  st->window = prepared.window;
  // "engine", "llama-server" or "openai": reported with the answer and in the statistics.
  st->provider = scheduler_->provider();
  st->served_by = scheduler_->served_by();
  job.request = std::move(prepared.request);  // with the stop rule, which runs on the engine thread
  // Automatic requests (typing) have a first-token budget: over it, the engine shortens the
  // suffix rather than answer late; while the user types, it follows the typing rhythm
  // (typing_rhythm.h). An invoked request waits for the whole prompt.
  if (query.trigger != Trigger::kInvoked) {
    int budget = options_.scheduling.latency_budget_ms;
    if (auto e = rhythm_.find(uri); options_.scheduling.typing_budget && e != rhythm_.end())
      budget = typing_budget_ms(budget, e->second.typical_gap_ms());
    job.request.first_token_budget_ms = budget;
    if (budget < options_.scheduling.latency_budget_ms) stats_.record("typing_budget_ms", budget);
  }
  // Someone waits for this one: a draft model far behind its prompt catches up afterwards.
  job.request.draft_catch_up_later = true;
  stats_.count(mode == Mode::kSingleLine ? "mode_single_line" : "mode_multi_line");
  st->request = job.request;
  std::optional<CompletionRequest> early;  // submitted after the job (whose submit ends older background work)
  if (job.debounce_ms > 0 && options_.scheduling.early_prefill) early = job.request;
  job.still_current = [this, uri, version] { return workspace_.version(uri) == version; };
  // Streaming: each partial is the whole suggestion so far, post-processed as the answer is.
  // Under the confidence gate, a partial is streamed while the confidence of the first line
  // so far passes: the first words show as soon as they are decoded, not after the line.
  if (inline_kind && query.stream) {
    const double min_confidence = st->gated ? gate_threshold() : 0;
    job.on_text = [st, facts = st->facts, mode, min_confidence](const std::string&, const std::string& so_far,
                                                                const Timings::Confidence& confidence) {
      if (st->answered) return;
      std::string shown = postprocess(so_far, *facts, mode).text;
      if (min_confidence > 0 && confidence.tokens > 0 &&
          below_confidence(shown_confidence(confidence, shown), min_confidence))
        return;
      st->streamed = true;
      st->receiver->partial(std::move(shown), st->cursor);
    };
  }
  st->receiver = std::move(receiver);
  job.on_done = [this, st](Scheduler::JobResult r) { on_greedy_done(st, std::move(r)); };
  st->current_job = scheduler_->submit(std::move(job));
  requests_[id] = st;
  if (early) prefill_early(uri, *early, version);
  return id;
}

void CompletionService::count_filters(const Postprocessed& pp, const std::string& prefix) {
  for (const std::string& name : pp.fired) stats_.count(prefix + "filter_" + name);
}

CompletionAnswer CompletionService::suggestions_answer(const CompletionState& st) const {
  CompletionAnswer a;
  a.suggestions = st.suggestions.texts();
  if (!st.alternatives) a.suggestions = {st.shown};
  a.served_by = st.served_by;
  a.cost = st.cost;
  return a;
}

void CompletionService::on_greedy_done(const std::shared_ptr<CompletionState>& st, Scheduler::JobResult r) {
  using Clock = std::chrono::steady_clock;
  const std::string& served_by = st->served_by;
  const bool local = st->provider == Scheduler::Provider::kLocalEngine;
  auto total = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - st->t0).count(); };
  if (model_file_lost()) {  // the answer was computed from zeroed weights
    answer(st, {});
    return;
  }
  stats_.record("debounce_ms", r.debounce_ms);
  if (local) count_prefilled_parts(r.timings);  // cancelled runs' prefill too: work the engine did
  if (r.outcome == Scheduler::Outcome::kDone || r.outcome == Scheduler::Outcome::kError) {
    stats_.record("queue_ms", r.queue_ms);
    // What background work cost the request: waiting for a preempted job to give way, and
    // waiting for an early prefill of its own prompt (work it would have done itself).
    stats_.record("background_wait_ms", r.background_wait_ms);
    stats_.record("own_prefill_wait_ms", r.own_prefill_wait_ms);
    stats_.record("engine_ms", r.engine_ms);
    if (r.timings.first_token_ms > 0) stats_.record("engine_first_token_ms", r.timings.first_token_ms);
    if (local) {  // sums: divided by outcome_done + outcome_error, the mean per request
      stats_.count("prefilled_tokens", static_cast<uint64_t>(std::max(0, r.timings.tokens_prefilled)));
      stats_.count("reused_tokens", static_cast<uint64_t>(std::max(0, r.timings.tokens_reused)));
      // Speculative drafts verified, and of them the draft model's (the rest: prompt lookup).
      if (r.timings.drafts_proposed > 0) {
        stats_.count("drafts_proposed", static_cast<uint64_t>(r.timings.drafts_proposed));
        stats_.count("drafts_accepted", static_cast<uint64_t>(std::max(0, r.timings.drafts_accepted)));
        stats_.count("model_drafts_proposed", static_cast<uint64_t>(std::max(0, r.timings.model_drafts_proposed)));
        stats_.count("model_drafts_accepted", static_cast<uint64_t>(std::max(0, r.timings.model_drafts_accepted)));
      }
      if (r.timings.draft_ms > 0) stats_.record("draft_ms", r.timings.draft_ms);  // the draft model's passes
      if (r.timings.budget_cut_tokens > 0) {  // the latency budget shortened the suffix
        stats_.count("budget_cuts");
        stats_.count("budget_cut_tokens", static_cast<uint64_t>(r.timings.budget_cut_tokens));
      }
    }
    if (!local) {  // the same stages, labelled with the remote backend
      stats_.record(served_by + "_ms", r.engine_ms);
      if (r.timings.first_token_ms > 0) stats_.record(served_by + "_first_token_ms", r.timings.first_token_ms);
    }
  }
  if (r.first_text_ms >= 0) stats_.record("first_text_ms", r.first_text_ms);
  stats_.count(std::string("outcome_") + to_string(r.outcome));
  if (local && (r.outcome == Scheduler::Outcome::kDone || r.outcome == Scheduler::Outcome::kCancelled ||
                r.outcome == Scheduler::Outcome::kSuperseded))
    log_.debug("completion " + std::string(to_string(r.outcome)) + ": reused " + std::to_string(r.timings.tokens_reused) +
               ", prefilled " + std::to_string(r.timings.tokens_prefilled) + " tokens in " +
               std::to_string(static_cast<int>(r.timings.prefill_ms)) + " ms, suffix cut " +
               std::to_string(r.timings.budget_cut_tokens) + ", first token " +
               std::to_string(static_cast<int>(r.timings.first_token_ms)) + " ms, queued " +
               std::to_string(static_cast<int>(r.queue_ms)) + " ms");
  switch (r.outcome) {
    case Scheduler::Outcome::kDone: {
      if (r.timings.draft_behind) {
        stats_.count("draft_behind");
        st->draft_behind = true;
        if (!st->alternatives) catch_up_draft(*st);  // else after the alternatives
      }
      // An edit that arrived while the engine ran is a content change in the client's
      // ordinary message stream: the answer for the older text is returned (positions as
      // the request gave them); the client judges whether it is still useful, or cancels.
      if (workspace_.version(st->uri) != st->version) stats_.count("answered_after_edit");
      Postprocessed pp = postprocess(r.text, *st->facts, st->mode);
      count_filters(pp);
      if (pp.text.empty() && !r.text.empty()) stats_.count("filtered_to_nothing");
      if (r.timings.confidence.tokens > 0) stats_.count("confidence_reported");
      st->cost = CompletionCost{r.timings.tokens_reused, r.timings.tokens_prefilled, r.timings.tokens_generated,
                                r.engine_ms, r.debounce_ms, std::nullopt};
      const Timings::Confidence confidence = shown_confidence(r.timings.confidence, pp.text);
      if (!pp.text.empty() && below_confidence(confidence, gate_threshold())) {
        if (st->gated) {  // nothing shown, nothing remembered for typing-through, nothing decoded ahead
          stats_.count("held_back_low_confidence");
          // Its start passed while it streamed, its whole first line did not: the editor
          // takes back the ghost text it showed.
          if (st->streamed) stats_.count("retracted_low_confidence");
          CompletionAnswer a;
          a.served_by = st->served_by;
          a.cost = st->cost;
          a.held_back = true;
          answer(st, std::move(a));
          break;
        }
        stats_.count("shown_below_confidence");  // an invoked request shows its best anyway
      }
      const std::string_view text(st->snapshot->text);
      typing_.remember(st->uri, text.substr(0, st->offset), text.substr(st->offset), pp.text);
      stats_.count("served_by_" + served_by);
      stats_.record("total_ms", total());
      stats_.record("overhead_ms", total() - r.debounce_ms - r.timings.total_ms);
      st->shown = pp.text;
      st->suggestions.add(pp.text);
      if (st->alternatives) {
        run_alternative(st, 1);  // answers when the last one is done
      } else {
        answer(st, suggestions_answer(*st));
        start_ahead(st);
      }
      break;
    }
    case Scheduler::Outcome::kError:
      // A remote backend's problems reach the editor once, through its health report.
      if (local) log_.error("completion failed: " + r.error);
      else log_.debug("completion failed: " + r.error);
      answer(st, {});
      break;
    case Scheduler::Outcome::kNoEngine:
      answer(st, {});
      break;
    case Scheduler::Outcome::kCancelled: {
      CompletionAnswer a;
      a.outcome = CompletionAnswer::Outcome::kCancelled;
      answer(st, std::move(a));
      break;
    }
    case Scheduler::Outcome::kSuperseded: {
      // A newer request for the document replaced it: no suggestion, marked so that clients
      // and `wafer bench` tell it apart from an empty answer.
      CompletionAnswer a;
      a.outcome = CompletionAnswer::Outcome::kSuperseded;
      answer(st, std::move(a));
      break;
    }
    case Scheduler::Outcome::kStale:
      // The document changed during the debounce: the work is dropped (never queued behind
      // newer edits), and the request gets no suggestion.
      answer(st, {});
      break;
  }
  events_.trace("completion " + st->uri + ": " + to_string(r.outcome) + ", " + std::to_string(r.text.size()) +
                " bytes, debounce " + std::to_string(r.debounce_ms) + " ms, engine " + std::to_string(r.engine_ms) +
                " ms");
}

}  // namespace wafer
