// LspServer's completion requests: textDocument/inlineCompletion and the
// textDocument/completion fallback, from the cursor to a scheduled engine job and back.
#include <algorithm>
#include <chrono>
#include <optional>

#include "server/daemon/completion.h"
#include "server/daemon/completion_request.h"
#include "server/daemon/completion_state.h"
#include "server/prompt/context.h"
#include "server/prompt/filters.h"
#include "server/daemon/lsp_server.h"
#include "server/prompt/prompt_paths.h"
#include "server/daemon/settings.h"
#include "server/prompt/stop_rules.h"
#include "server/prompt/token_estimate.h"

namespace wafer {

using json = nlohmann::json;
using jsonrpc::Reply;

namespace {

json empty_result(bool inline_kind) {
  return inline_kind ? json(lsp::InlineCompletionList{}) : json(lsp::CompletionList{});
}

json superseded_result(bool inline_kind) {
  json r = empty_result(inline_kind);
  r["wafer"] = {{"outcome", "superseded"}};
  return r;
}

json make_result(bool inline_kind, const std::string& text, const lsp::Position& cursor) {
  return inline_kind ? json(inline_completion_result(text, cursor)) : json(completion_result(text, cursor));
}

}  // namespace

void LspServer::on_completion_feedback(const json& params, bool partial_accept) {
  if (!partial_accept) {
    stats_.count("shown");
    return;
  }
  stats_.count("partially_accepted");
  // acceptedLength: how much of the item the user took (accept word / accept line).
  if (params.is_object()) {
    auto it = params.find("acceptedLength");
    if (it != params.end() && it->is_number_unsigned()) stats_.count("accepted_length", it->get<uint64_t>());
  }
}

const std::vector<Definition>& LspServer::definitions(const std::string& uri, const Workspace::View& view) {
  Definitions& d = definitions_[uri];
  if (d.version != view.snapshot->version) {
    d.version = view.snapshot->version;
    d.list.clear();
    if (const grammars::LanguageRules* rules = view.language ? grammars::language_rules(view.language->name) : nullptr)
      d.list = find_definitions(*view.snapshot, view.tree.get(), *rules);
  }
  return d.list;
}

CompletionSite LspServer::completion_site(const std::string& uri, const Workspace::View& view, size_t offset) {
  CompletionSite site;
  site.options = &options_;
  site.model = scheduler_->model_info();
  site.root_uri = root_uri_;
  site.uri = uri;
  site.view = &view;
  site.offset = offset;
  site.others = [this, &uri, &view](const std::vector<std::string>& names) {
    std::vector<ExtraSource> sources;
    for (const std::string& other : workspace_.uris()) {  // sorted: a stable order
      if (other == uri || !options_.open_buffers) continue;
      std::optional<Workspace::View> v = workspace_.get(other);
      if (!v || !v->language || !related_languages(v->language->name, view.language->name)) continue;
      sources.push_back({prompt_path(root_uri_, other), &definitions(other, *v), 0, 0, false});
    }
    // Then the files of the workspace index that define a name used here (by path).
    for (ExtraSource& s : index_sources(names, view.language->name)) sources.push_back(std::move(s));
    return sources;
  };
  site.own_definitions = [this, &uri, &view]() -> const std::vector<Definition>& { return definitions(uri, view); };
  site.recent = [this](std::string_view window, int budget) {
    return recent_.for_prompt(window, budget, [this](const std::string& u) { return prompt_path(root_uri_, u); });
  };
  site.keep_extra = [this, &uri, &view](size_t window_begin, int budget, const CompletionSite::ChooseExtra& choose) {
    std::vector<std::pair<std::string, int64_t>> others;  // the documents it may draw on, and their versions
    for (const std::string& other : workspace_.uris()) {
      if (other == uri || !options_.open_buffers) continue;
      std::optional<Workspace::View> v = workspace_.get(other);
      if (v && v->language && related_languages(v->language->name, view.language->name))
        others.emplace_back(other, v->snapshot->version);
    }
    if (index_ && options_.workspace_index) others.emplace_back("", index_generation_);  // "": the index
    if (options_.recent_tokens > 0)  // " recent": the ring of recent edits
      others.emplace_back(" recent", static_cast<int64_t>(recent_.generation()));
    auto it = extra_choice_.find(uri);
    if (it != extra_choice_.end() && it->second.window_begin == window_begin && it->second.budget_tokens == budget &&
        it->second.others == others)
      return it->second.chunks;
    ExtraChoice& choice = extra_choice_[uri];
    choice = {window_begin, budget, std::move(others), choose()};
    return choice.chunks;
  };
  return site;
}

PreparedCompletion LspServer::prepare(const std::string& uri, const Workspace::View& view, size_t offset) {
  PreparedCompletion p = prepare_completion(completion_site(uri, view, offset));
  if (!p.request.extra.empty()) stats_.count("extra_context");
  // Estimated tokens per source of extra context (sums over requests: divide by inline_requests).
  for (const ContextFile& f : p.request.extra)
    if (*f.source) stats_.count(std::string("extra_tokens_") + f.source, estimate_tokens(f.text));
  return p;
}

void LspServer::on_completion(const json& params, Reply&& reply, bool inline_kind) {
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  auto p = lsp::parse_params<lsp::CompletionParams>(params);
  stats_.count(inline_kind ? "inline_requests" : "completion_requests");
  const std::string& uri = p.text_document.uri;
  std::optional<Workspace::View> view = workspace_.get(uri);
  if (!view) throw jsonrpc::InvalidParams("textDocument.uri: the document is not open: " + uri);
  Result<size_t> offset = offset_at(*view->snapshot, p.position, encoding_);
  if (!offset) throw jsonrpc::InvalidParams("position: " + offset.error().message);
  const char* refused = nullptr;
  if (view->out_of_sync) refused = "refused_out_of_sync";
  else if (!language_enabled(options_, view->snapshot->language_id)) refused = "refused_language";
  else if (!scheduler_->model_info() && !model_loading_) refused = "refused_no_model";
  if (refused) {
    stats_.count(refused);
    reply.result(empty_result(inline_kind));
    return;
  }
  if (model_loading_ && !scheduler_->model_info()) {
    stats_.count("waited_for_model");
    for (WaitingForModel& w : waiting_for_model_)
      if (w.uri == uri) {  // superseded by this one
        w.reply.result(superseded_result(w.inline_kind));
        w = {uri, params, std::move(reply), inline_kind};
        return;
      }
    waiting_for_model_.push_back({uri, params, std::move(reply), inline_kind});
    return;
  }

  // The cursor as the client should see it in results (a character past the line end
  // was clamped to the line end).
  lsp::Position cursor = position_at(*view->snapshot, *offset, encoding_);
  int64_t version = view->snapshot->version;
  const std::shared_ptr<const Snapshot> snapshot = view->snapshot;
  const std::string_view before = std::string_view(snapshot->text).substr(0, *offset);
  const std::string_view after = std::string_view(snapshot->text).substr(*offset);

  // Alternatives for an invoked request (remote backends decode greedily whatever they are
  // asked, so theirs would repeat); such a request skips typing-through, which has one.
  const bool alternatives = p.trigger_kind == lsp::kTriggerInvoked && inline_kind && options_.alternatives > 1 &&
                            scheduler_->provider() == Scheduler::Provider::kLocalEngine;
  // Typing-through: the user typed the head of the last suggestion; no debounce, no engine.
  // Past its end, the continuation decoded ahead of the cursor answers (lsp_ahead.cpp).
  std::optional<std::string> rest;
  bool ahead = false;
  if (!alternatives) rest = typing_.lookup(uri, before, after, &ahead);
  if (rest) {
    scheduler_->supersede(uri);
    json result = make_result(inline_kind, *rest, cursor);
    if (inline_kind) result["wafer"] = {{"served_by", ahead ? "ahead" : "typing"}};
    reply.result(result);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    stats_.count(ahead ? "ahead_hits" : "typing_through");
    stats_.record(ahead ? "ahead_answer_ms" : "typing_through_ms", ms);
    return;
  }
  Scheduler::Job job;
  job.key = uri;
  job.debounce_ms = 0;
  if (p.trigger_kind != lsp::kTriggerInvoked) {
    // Debounce from the last keystroke, not from the request.
    double since_edit = 1e9;
    if (auto e = rhythm_.find(uri); e != rhythm_.end() && e->second.seen())
      since_edit = std::chrono::duration<double, std::milli>(t0 - e->second.last()).count();
    job.debounce_ms = std::max(0, options_.debounce_ms - static_cast<int>(since_edit));
  }
  PreparedCompletion prepared = prepare(uri, *view, *offset);
  const Mode mode = prepared.mode;
  auto st = std::make_shared<CompletionState>();
  st->uri = uri;
  st->version = version;
  st->cursor = cursor;
  st->inline_kind = inline_kind;
  st->alternatives = alternatives;
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
  if (p.trigger_kind != lsp::kTriggerInvoked) {
    int budget = options_.latency_budget_ms;
    if (auto e = rhythm_.find(uri); options_.typing_budget && e != rhythm_.end())
      budget = typing_budget_ms(budget, e->second.typical_gap_ms());
    job.request.first_token_budget_ms = budget;
    if (budget < options_.latency_budget_ms) stats_.record("typing_budget_ms", budget);
  }
  stats_.count(mode == Mode::kSingleLine ? "mode_single_line" : "mode_multi_line");
  if (alternatives || options_.ahead_tokens > 0) st->request = job.request;
  std::optional<CompletionRequest> early;  // submitted after the job (whose submit ends older background work)
  if (job.debounce_ms > 0 && options_.early_prefill) early = job.request;
  job.still_current = [this, uri, version] { return workspace_.version(uri) == version; };
  // Streaming (a wafer extension for inlineCompletion, which has no standard partial
  // results): each $/progress value is the whole suggestion so far; the final reply
  // carries the complete result as usual.
  if (inline_kind && !p.partial_result_token.is_null()) {
    job.on_text = [this, token = p.partial_result_token, cursor, facts = st->facts, mode](const std::string&,
                                                                                            const std::string& so_far) {
      endpoint_.notify("$/progress",
                       {{"token", token}, {"value", inline_completion_result(postprocess(so_far, *facts, mode).text, cursor)}});
    };
  }
  st->reply = std::make_shared<Reply>(std::move(reply));
  job.on_done = [this, st](Scheduler::JobResult r) { on_greedy_done(st, std::move(r)); };
  st->current_job = scheduler_->submit(std::move(job));
  st->reply->on_cancel([this, st] { scheduler_->cancel(st->current_job); });
  if (early) prefill_early(uri, *early, version);
}

void LspServer::on_greedy_done(const std::shared_ptr<CompletionState>& st, Scheduler::JobResult r) {
  using Clock = std::chrono::steady_clock;
  const bool inline_kind = st->inline_kind;
  const std::string& served_by = st->served_by;
  const bool local = st->provider == Scheduler::Provider::kLocalEngine;
  auto total = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - st->t0).count(); };
  if (model_file_lost()) {  // the answer was computed from zeroed weights
    st->reply->result(empty_result(inline_kind));
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
      // An edit that arrived while the engine ran is a content change in the server's
      // ordinary message stream, for which LSP 3.18 says not to answer ContentModified:
      // the result for the older text is returned (positions as the request gave them);
      // the client judges whether it is still useful, or cancels.
      if (workspace_.version(st->uri) != st->version) stats_.count("answered_after_edit");
      Postprocessed pp = postprocess(r.text, *st->facts, st->mode);
      for (const std::string& name : pp.fired) stats_.count("filter_" + name);
      if (pp.text.empty() && !r.text.empty()) stats_.count("filtered_to_nothing");
      const std::string_view text(st->snapshot->text);
      typing_.remember(st->uri, text.substr(0, st->offset), text.substr(st->offset), pp.text);
      st->result = make_result(inline_kind, pp.text, st->cursor);
      // A wafer extension (clients ignore unknown fields): what this answer cost, for
      // `wafer bench` and editors' status lines.
      if (inline_kind)
        st->result["wafer"] = {{"served_by", served_by},
                               {"tokens_reused", r.timings.tokens_reused},
                               {"tokens_prefilled", r.timings.tokens_prefilled},
                               {"tokens_generated", r.timings.tokens_generated},
                               {"engine_ms", r.engine_ms},
                               {"debounce_ms", r.debounce_ms}};
      stats_.count("served_by_" + served_by);
      stats_.record("total_ms", total());
      stats_.record("overhead_ms", total() - r.debounce_ms - r.timings.total_ms);
      st->shown = pp.text;
      st->suggestions.add(pp.text);
      if (st->alternatives) {
        run_alternative(st, 1);  // replies when the last one is done
      } else {
        st->reply->result(st->result);
        start_ahead(st);
      }
      break;
    }
    case Scheduler::Outcome::kError:
      // A remote backend's problems reach the editor once, through its health report.
      if (local) log_.error("completion failed: " + r.error);
      else log_.debug("completion failed: " + r.error);
      st->reply->result(empty_result(inline_kind));
      break;
    case Scheduler::Outcome::kNoEngine:
      st->reply->result(empty_result(inline_kind));
      break;
    case Scheduler::Outcome::kCancelled:
      st->reply->error({jsonrpc::kRequestCancelled, "request cancelled"});
      break;
    case Scheduler::Outcome::kSuperseded:
      // A newer request for the document replaced it. RequestCancelled is for cancellations
      // the client asked for, and inline completion is not server-cancellable
      // (ServerCancelled), so the answer is "no suggestion", marked for clients and
      // `wafer bench` that tell it apart from an empty answer.
      st->reply->result(superseded_result(inline_kind));
      break;
    case Scheduler::Outcome::kStale:
      // The document changed during the debounce: the work is dropped (never queued
      // behind newer edits), and the request gets "no suggestion" rather than the
      // ContentModified error LSP reserves for changes outside the message stream.
      st->reply->result(empty_result(inline_kind));
      break;
  }
  trace("completion " + st->uri + ": " + to_string(r.outcome) + ", " + std::to_string(r.text.size()) + " bytes, debounce " +
        std::to_string(r.debounce_ms) + " ms, engine " + std::to_string(r.engine_ms) + " ms");
}

}  // namespace wafer
