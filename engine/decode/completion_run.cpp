#include "engine/decode/completion_run.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

#include "engine/decode/chunk_reuse.h"
#include "engine/decode/completion_text.h"
#include "engine/decode/sampler.h"

namespace wafer {

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

class Run {
 public:
  Run(RunContext& ctx, const CompletionRequest& request, const CompletionCallback& on_event)
      : ctx_(ctx),
        s_(*ctx.session),
        req_(request),
        on_event_(on_event),
        decoder_(*ctx.tokenizer),
        text_(request.stop),
        copy_(ctx.settings.copy),
        heal_rest_(ctx.healed) {}

  void run(const std::vector<TokenId>& prompt, const std::vector<TokenId>* reading) {
    if (prompt.empty()) return fail("empty prompt");
    if (!heal_rest_.empty() && !ctx_.healer) return fail("token healing without a token index");
    ctx_.timings.healed_bytes = static_cast<int>(heal_rest_.size());
    if (prompt.size() > static_cast<size_t>(s_.context_size()))
      return fail("the prompt of " + std::to_string(prompt.size()) + " tokens does not fit the context of " +
                  std::to_string(s_.context_size()) + " tokens");
    StopReason why = StopReason::kMaxTokens;
    if (!prefill(prompt, why)) return;
    if (why == StopReason::kCancelled || why == StopReason::kBudget) return done(why);
    if (req_.prefill_only && req_.warm_draft) prefill_draft(prompt);
    if (req_.max_tokens <= 0 || req_.prefill_only) return done(StopReason::kMaxTokens);
    if (copy_.enabled()) copy_.reset(reading ? *reading : prompt);
    decode(prompt);
  }

 private:
  bool cancelled() const { return req_.cancel && req_.cancel->load(std::memory_order_relaxed); }

  // Fills the cache with the prompt; false after an error (already reported). Sets `why`
  // when cancellation or the budget cut the prefill short.
  bool prefill(const std::vector<TokenId>& prompt, StopReason& why) {
    const auto t0 = Clock::now();
    // The common prefix stays; spans of the prompt still in the cache further on (the
    // suffix after a keystroke) are moved, not recomputed. When the cache holds exactly
    // this prompt and the logits after it (a prefill-only run, such as the early prefill
    // during the debounce, left them), there is nothing to run.
    const Session::Reuse reuse = s_.begin_reuse(prompt, ctx_.settings.chunk_reuse_min);
    const size_t common = reuse.common;
    const std::vector<ReusedChunk>& chunks = reuse.chunks;
    ctx_.timings.tokens_reused = static_cast<int>(common);
    if (reuse.up_to_date) {
      ctx_.timings.prefill_ms = ms_between(t0, Clock::now());
      return true;
    }
    size_t pos = common;
    for (size_t i = 0; i <= chunks.size(); ++i) {
      const size_t end = i < chunks.size() ? static_cast<size_t>(chunks[i].prompt_pos) : prompt.size();
      if (!evaluate(prompt, pos, end, common, t0, why)) return false;
      if (why != StopReason::kMaxTokens) break;
      if (i == chunks.size()) break;
      if (Status st = s_.place_stashed(i); !st) {
        ctx_.timings.prefill_ms = ms_between(t0, Clock::now());
        fail(st.error().message);
        return false;
      }
      pos = end + static_cast<size_t>(chunks[i].n);
      ctx_.timings.tokens_reused += chunks[i].n;
      ctx_.timings.tokens_moved += chunks[i].n;
    }
    ctx_.timings.prefill_ms = ms_between(t0, Clock::now());
    return true;
  }

  // Runs prompt[pos, end) through the model in chunks (the last prompt token with logits);
  // false after an error (already reported). Sets `why` when cancellation or the prefill
  // budget stops it.
  bool evaluate(const std::vector<TokenId>& prompt, size_t pos, size_t end, size_t common, Clock::time_point t0,
                StopReason& why) {
    const size_t chunk = static_cast<size_t>(std::max(1, ctx_.settings.prefill_chunk));
    for (size_t n = 0; pos < end; pos += n) {
      const double spent = ms_between(t0, Clock::now());
      if (cancelled()) why = StopReason::kCancelled;
      // The budget is checked after progress, so that a tight budget still fills the cache
      // a chunk per request and later requests reuse it.
      else if (req_.max_prefill_ms > 0 && pos > common && spent > req_.max_prefill_ms) why = StopReason::kBudget;
      if (why != StopReason::kMaxTokens) return true;
      // A remainder of up to half a chunk joins the step before it: every forward step
      // streams all the weights once, and a keystroke's usual 64-token suffix plus a few
      // tokens would cost a second pass over the weights for the few.
      n = std::min(chunk, end - pos);
      if (end - pos - n <= chunk / 2) n = end - pos;
      const bool last = pos + n == prompt.size();
      // The forward pass itself watches the cancel flag between layers, so a superseded
      // request frees the engine within a layer's work, not a whole chunk's.
      Status st = s_.eval(std::span<const int32_t>(prompt.data() + pos, n), last ? LogitsFor::kLast : LogitsFor::kNone,
                          req_.cancel.get());
      if (!st && cancelled()) {
        why = StopReason::kCancelled;
        return true;
      }
      if (!st) {
        ctx_.timings.prefill_ms = ms_between(t0, Clock::now());
        fail(st.error().message);
        return false;
      }
      ctx_.timings.tokens_prefilled += static_cast<int>(n);
      count_parts(pos, pos + n);
    }
    return true;
  }

  // Adds the prompt tokens [begin, end), just prefilled, to their parts' counts.
  void count_parts(size_t begin, size_t end) {
    Timings::PromptParts& c = ctx_.timings.prefilled_parts;
    for (const PromptPart& p : ctx_.layout) {
      const size_t b = std::max(begin, p.begin), e = std::min(end, p.end);
      if (b >= e) continue;
      const int n = static_cast<int>(e - b);
      switch (p.role) {
        case FimRole::kExtra: c.extra += n; break;
        case FimRole::kPrefix: c.prefix += n; break;
        case FimRole::kSuffix: c.suffix += n; break;
        case FimRole::kFrame: c.frame += n; break;
      }
    }
  }

  // The logits row that predicts the next token, with the copy predictor mixed in when it
  // has a repeat to offer.
  std::span<const float> next_logits(size_t row) {
    const size_t n = ctx_.n_vocab;
    const std::span<const float> raw(s_.logits().data() + row * n, n);
    if (copy_.enabled() && copy_.mix(raw, mixed_)) return mixed_;
    return raw;
  }

  // A token is part of the completion: the sampler's and the copy predictor's history.
  void chosen(Sampler& sampler, TokenId t) {
    sampler.accept(t);
    if (copy_.enabled()) copy_.push(t);
  }

  // Adds the chosen token's log-probability, in the distribution it was chosen from (the
  // copy predictor's mixture where it mixed), to the first line's confidence, until a token
  // completes a line that holds text. A token wholly inside the healed bytes reproduces the
  // prompt and does not count; one that goes past them counts as chosen among the tokens
  // that reproduce them.
  void note_confidence(std::span<const float> logits, TokenId t) {
    if (first_line_done_) return;
    std::string_view bytes = ctx_.tokenizer->token_bytes(t);
    if (!heal_rest_.empty()) {
      if (bytes.size() <= heal_rest_.size()) return;
      bytes.remove_prefix(heal_rest_.size());
    }
    // While healing, the typed bytes are given: the token's probability among the tokens
    // that reproduce them (choose() left those in allowed_).
    const float lp = heal_rest_.empty() ? token_log_prob(logits, t) : token_log_prob_among(logits, t, allowed_);
    Timings::Confidence& c = ctx_.timings.confidence;
    if (c.tokens == 0) {
      c.first_prob = std::exp(lp);
      c.min_logprob = lp;
    }
    c.min_logprob = std::min(c.min_logprob, lp);
    logprob_sum_ += lp;
    text_bytes_ += bytes.size();
    if (c.tokens < Timings::Confidence::kKept) {
      c.logprob[static_cast<size_t>(c.tokens)] = lp;
      c.end[static_cast<size_t>(c.tokens)] = static_cast<uint32_t>(text_bytes_);
    }
    c.mean_logprob = static_cast<float>(logprob_sum_ / ++c.tokens);
    for (char ch : bytes) {
      if (ch == '\n' && line_has_text_) first_line_done_ = true;
      else if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n') line_has_text_ = true;
    }
  }

  bool end_of_generation(TokenId t) const {
    const auto& eog = ctx_.fim->end_of_generation;
    return ctx_.tokenizer->is_eog(t) || ctx_.tokenizer->is_control(t) || std::binary_search(eog.begin(), eog.end(), t);
  }

  // Hands one generated token to the caller; false when generation must stop (sets stop_).
  // While healing, only the token's bytes past the healed ones are text; a token wholly
  // inside them shows nothing (but counts against max_tokens: the budget bounds the work).
  bool emit(TokenId t) {
    if (generated_++ == 0) ctx_.timings.first_token_ms = ms_between(ctx_.start, Clock::now());
    if (!heal_rest_.empty()) {
      const std::string_view bytes = ctx_.tokenizer->token_bytes(t);
      if (bytes.size() <= heal_rest_.size()) {
        heal_rest_.remove_prefix(bytes.size());
        return generated_ < req_.max_tokens || stop(StopReason::kMaxTokens);
      }
      send_text(text_.push(decoder_.push_bytes(bytes.substr(heal_rest_.size()))));
      heal_rest_ = {};
    } else {
      send_text(text_.push(decoder_.push(t)));
    }
    if (text_.stopped()) return stop(StopReason::kStopString);
    if (req_.should_stop && req_.should_stop(text_.text())) return stop(StopReason::kStopCallback);
    if (generated_ >= req_.max_tokens) return stop(StopReason::kMaxTokens);
    return true;
  }

  // The next token from one logits row: among the tokens that reproduce the rest of the
  // healed bytes while any remain, else from the whole row. -1: none can.
  TokenId choose(Sampler& sampler, std::span<const float> logits) {
    if (heal_rest_.empty()) return sampler.sample(logits);
    ctx_.healer->allowed(heal_rest_, allowed_);
    return sampler.sample(logits, allowed_);
  }

  bool stop(StopReason why) {
    stop_ = why;
    return false;
  }

  void send_text(std::string delta) {
    if (delta.empty()) return;
    CompletionEvent e;
    e.kind = CompletionEvent::Kind::kText;
    e.text = std::move(delta);
    e.timings.confidence = ctx_.timings.confidence;  // so far: the caller may judge a streamed line
    on_event_(e);
  }

  // A warm-up (CompletionRequest::warm_draft) brings the draft model's cache to the prompt
  // too, when the request that follows would draft with it: otherwise that request's first
  // draft prefills the draft's cache for the whole prompt between its first and second
  // tokens. Best effort: an interrupt (a keystroke, a request) or a failure only leaves the
  // catching up to that first draft, as before.
  void prefill_draft(const std::vector<TokenId>& prompt) {
    if (!ctx_.draft_model || req_.temperature > 0 || ctx_.settings.draft.max_draft <= 0 || cancelled()) return;
    const std::atomic<bool>* stop = req_.stop_draft ? req_.stop_draft.get() : req_.cancel.get();
    if (stop && stop->load(std::memory_order_relaxed)) return;
    const auto t0 = Clock::now();
    (void)ctx_.draft_model->prefill(prompt, stop);
    ctx_.timings.draft_ms += ms_between(t0, Clock::now());
  }

  // The next draft after `history` (the prompt, then the output so far): prompt lookup's,
  // or the draft model's when that is longer. The draft model does not run when lookup
  // already has as many tokens as it would draft, nor while its drafting pauses. A draft
  // model that fails (interrupted, its context full) costs the speed-up, never the
  // completion. Sets `by_model`.
  std::vector<int32_t> draft_tokens(PromptLookup& lookup, const std::vector<int32_t>& history, size_t prompt_size,
                                    int limit, bool& by_model) {
    by_model = false;
    std::vector<int32_t> d;
    if (ctx_.settings.prompt_lookup) d = lookup.propose(history, limit);
    DraftModel* model = ctx_.draft_model;
    if (!model) return d;
    if (model->draft_length() == 0) {  // paused: the model is expected to be faster alone
      model->skipped();
      return d;
    }
    if (static_cast<int>(d.size()) >= std::min(model->draft_length(), limit)) return d;
    if (!draft_checked_) {  // only the request's first draft can find the draft's cache far behind
      draft_checked_ = true;
      if (req_.draft_catch_up_later && !model->catch_up_pays(history, generated_, req_.max_tokens))
        ctx_.timings.draft_behind = true;
    }
    if (ctx_.timings.draft_behind) return d;
    const auto t0 = Clock::now();
    const DraftModel::EndsGeneration ends = [this](int32_t t) { return end_of_generation(t); };
    Result<std::vector<int32_t>> proposed = model->propose(history, limit, req_.cancel.get(), &ends);
    last_draft_ms_ = ms_between(t0, Clock::now());
    last_catch_up_ = model->last_catch_up_tokens();
    ctx_.timings.draft_ms += last_draft_ms_;
    if (!proposed) return d;
    if (ctx_.settings.draft_filter)
      ctx_.settings.draft_filter(std::span<const int32_t>(history).subspan(prompt_size), *proposed);
    if (proposed->size() <= d.size()) return d;
    by_model = true;
    return std::move(*proposed);
  }

  void decode(const std::vector<TokenId>& prompt) {
    const auto t0 = Clock::now();
    SamplerParams sp;
    sp.temperature = req_.temperature;
    sp.top_p = req_.top_p;
    sp.seed = req_.seed;
    Sampler sampler(sp);
    const bool speculate = req_.temperature <= 0 && ctx_.settings.draft.max_draft > 0;
    PromptLookup drafter(ctx_.settings.draft);
    std::vector<int32_t> history = prompt;  // what drafts are looked up in
    size_t row = 0;                         // which logits row predicts the next token
    for (;;) {
      const std::span<const float> logits = next_logits(row);
      const TokenId token = choose(sampler, logits);
      if (token < 0 || end_of_generation(token)) {
        stop_ = StopReason::kEndOfText;
        break;
      }
      chosen(sampler, token);
      history.push_back(token);
      note_confidence(logits, token);
      if (!emit(token)) break;
      if (cancelled()) {
        stop_ = StopReason::kCancelled;
        break;
      }
      if (req_.max_decode_ms > 0 && ms_between(t0, Clock::now()) > req_.max_decode_ms) {
        stop_ = StopReason::kBudget;
        break;
      }
      const int room = s_.context_size() - static_cast<int>(s_.tokens().size());
      if (room <= 0) {
        stop_ = StopReason::kBudget;  // the context is full
        break;
      }
      std::vector<int32_t> batch{token};
      bool by_model = false;
      // A pass over the token and a draft of d tokens gives up to d + 1 tokens (the row
      // after the last accepted one names the next): with r tokens still to generate, a
      // draft of r - 1 can finish the suggestion, and an r-th drafted token would cost a
      // draft pass and a verification row for nothing.
      const int limit = std::min({req_.max_tokens - generated_ - 1, room - 1, ctx_.settings.draft.max_draft});
      if (speculate && heal_rest_.empty() && limit > 0) {
        std::vector<int32_t> d = draft_tokens(drafter, history, prompt.size(), limit, by_model);
        batch.insert(batch.end(), d.begin(), d.end());
      }
      const int before = static_cast<int>(s_.tokens().size());
      const auto pass_start = Clock::now();
      Status st = s_.eval(batch, batch.size() > 1 ? LogitsFor::kAll : LogitsFor::kLast, req_.cancel.get());
      const double pass_ms = ms_between(pass_start, Clock::now());
      // A draft that first prefilled the draft's cache for a new prompt cost what no later
      // draft will: left out of the cost lines, which would otherwise keep drafts short for
      // the next few dozen rounds.
      const bool typical_draft = by_model && last_catch_up_ <= kOrdinaryCatchUp;
      if (st && ctx_.settings.pass_observer)
        ctx_.settings.pass_observer(DecodePass{.rows = static_cast<int>(batch.size()),
                                               .ms = pass_ms,
                                               .by_model = by_model,
                                               .draft_ms = by_model ? last_draft_ms_ : 0.0,
                                               .typical = typical_draft});
      if (!st && cancelled()) {  // interrupted: the token is emitted, as when cancelled before the step
        stop_ = StopReason::kCancelled;
        break;
      }
      if (!st) {
        ctx_.timings.decode_ms = ms_between(t0, Clock::now());
        return fail(st.error().message);
      }
      row = 0;
      if (batch.size() == 1) {
        if (ctx_.draft_model && speculate) ctx_.draft_model->record_step(pass_ms);
        continue;
      }
      // Verify: draft i stands if the model, after batch[0..i], predicts it.
      const int proposed = static_cast<int>(batch.size()) - 1;
      int accepted = 0;
      bool finished = false;
      for (int i = 0; i < proposed && !finished; ++i) {
        const std::span<const float> logits = next_logits(static_cast<size_t>(i));
        const TokenId predicted = sampler.sample(logits);
        if (predicted != batch[static_cast<size_t>(i) + 1]) break;
        ++accepted;
        if (end_of_generation(predicted)) {
          stop_ = StopReason::kEndOfText;
          finished = true;
          break;
        }
        chosen(sampler, predicted);
        history.push_back(predicted);
        note_confidence(logits, predicted);
        finished = !emit(predicted);
      }
      ctx_.timings.drafts_proposed += proposed;
      ctx_.timings.drafts_accepted += accepted;
      if (by_model) {
        ctx_.timings.model_drafts_proposed += proposed;
        ctx_.timings.model_drafts_accepted += accepted;
        ctx_.draft_model->record(proposed, accepted);
        if (typical_draft) ctx_.draft_model->record_costs(proposed, last_draft_ms_, pass_ms);
      } else {
        drafter.record(proposed, accepted);
      }
      s_.truncate(before + 1 + accepted);  // rejected drafts leave the cache
      row = static_cast<size_t>(accepted);
      if (finished) break;
    }
    ctx_.timings.decode_ms = ms_between(t0, Clock::now());
    if (ctx_.draft_model && speculate) ctx_.draft_model->note_request_tokens(generated_);
    done(stop_);
  }

  void finish_timings() {
    ctx_.timings.tokens_generated = generated_;
    ctx_.timings.total_ms = ms_between(ctx_.start, Clock::now());
  }

  void done(StopReason why) {
    send_text(text_.push(decoder_.finish()));
    send_text(text_.finish());
    finish_timings();
    CompletionEvent e;
    e.kind = CompletionEvent::Kind::kDone;
    e.stop = why;
    e.text = text_.text();
    e.timings = ctx_.timings;
    e.timings.cancelled = why == StopReason::kCancelled;
    on_event_(e);
  }

  void fail(const std::string& message) {
    finish_timings();
    CompletionEvent e;
    e.kind = CompletionEvent::Kind::kError;
    e.stop = StopReason::kError;
    e.error = message;
    e.timings = ctx_.timings;
    on_event_(e);
  }

  RunContext& ctx_;
  Session& s_;
  const CompletionRequest& req_;
  const CompletionCallback& on_event_;
  StreamDecoder decoder_;
  CompletionText text_;
  CopyPredictor copy_;
  std::vector<float> mixed_;  // next_logits()' output when the copy predictor mixes
  int generated_ = 0;
  std::string_view heal_rest_;   // healed bytes not yet regenerated (into ctx_.healed)
  std::vector<TokenId> allowed_; // reused: the tokens allowed at a healing step
  StopReason stop_ = StopReason::kMaxTokens;
  double last_draft_ms_ = 0;  // the draft model's time for the latest draft
  int last_catch_up_ = 0;     // tokens the draft's cache ran before the latest draft
  bool draft_checked_ = false;  // whether the draft's catch-up was weighed (draft_catch_up_later)
  // A catch-up of up to this many tokens (a keystroke's change, the model's last tokens) is
  // one batched pass of the draft, part of what every draft costs.
  static constexpr int kOrdinaryCatchUp = 8;
  bool first_line_done_ = false;  // note_confidence: the first line with text is complete
  bool line_has_text_ = false;    // ... the text so far holds more than whitespace
  double logprob_sum_ = 0;
  size_t text_bytes_ = 0;         // ... bytes of text the noted tokens make
};

}  // namespace

void run_completion(RunContext& ctx, const CompletionRequest& request, const std::vector<TokenId>& prompt,
                    const CompletionCallback& on_event, const std::vector<TokenId>* reading) {
  Run(ctx, request, on_event).run(prompt, reading);
}

}  // namespace wafer
