#include "server/service/scheduler.h"

#include <algorithm>

namespace wafer {
namespace {

template <typename D>
double ms(D d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// Whether two requests share everything a prompt is made of but the prefix and suffix.
bool same_context(const CompletionRequest& a, const CompletionRequest& b) {
  if (a.session_key != b.session_key || a.file_path != b.file_path || a.repo_name != b.repo_name ||
      a.line_comment != b.line_comment || a.max_tokens != b.max_tokens || a.extra.size() != b.extra.size())
    return false;
  for (size_t i = 0; i < a.extra.size(); ++i)
    if (a.extra[i].path != b.extra[i].path || a.extra[i].text != b.extra[i].text) return false;
  return true;
}

// Whether two requests build the same prompt.
bool same_prompt(const CompletionRequest& a, const CompletionRequest& b) {
  return a.prefix == b.prefix && a.suffix == b.suffix && same_context(a, b);
}

// Whether `later`'s prompt starts with `earlier`'s up to the end of its prefix: the user
// typed on at the cursor (or nothing changed), so everything a prefill of `earlier`
// computes up to its cursor is the start of `later`'s prompt.
bool extends_prompt(const CompletionRequest& earlier, const CompletionRequest& later) {
  return later.prefix.size() >= earlier.prefix.size() &&
         later.prefix.compare(0, earlier.prefix.size(), earlier.prefix) == 0 && same_context(earlier, later);
}

}  // namespace

struct Scheduler::TimerBox {
  uv_timer_t timer;
  Scheduler* self;
  JobId id;
};

const char* to_string(Scheduler::Outcome o) {
  switch (o) {
    case Scheduler::Outcome::kDone: return "done";
    case Scheduler::Outcome::kError: return "error";
    case Scheduler::Outcome::kCancelled: return "cancelled";
    case Scheduler::Outcome::kSuperseded: return "superseded";
    case Scheduler::Outcome::kStale: return "stale";
    case Scheduler::Outcome::kNoEngine: return "no engine";
  }
  return "?";
}

Scheduler::Scheduler(uv_loop_t* loop) : loop_(loop), async_(new uv_async_t) {
  uv_async_init(loop_, async_, [](uv_async_t* h) { static_cast<Scheduler*>(h->data)->drain(); });
  async_->data = this;
  thread_ = std::thread([this] { engine_main(); });
}

Scheduler::~Scheduler() {
  if (!closed_) close();
}

void Scheduler::engine_main() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(task_mu_);
      task_cv_.wait(lock, [&] { return stop_ || task_; });
      if (!task_) return;
      task = std::move(task_);
      task_ = nullptr;
    }
    task();
  }
}

void Scheduler::post(std::function<void()> fn) {
  {
    std::lock_guard lock(out_mu_);
    outbox_.push_back(std::move(fn));
  }
  uv_async_send(async_);
}

void Scheduler::drain() {
  std::vector<std::function<void()>> items;
  {
    std::lock_guard lock(out_mu_);
    items.swap(outbox_);
  }
  for (auto& fn : items) fn();
}

Scheduler::JobId Scheduler::submit(Job job) {
  JobId id = next_id_++;
  if (closed_) {
    JobResult r;
    r.outcome = Outcome::kCancelled;
    if (job.on_done) job.on_done(std::move(r));
    return id;
  }
  if (auto it = by_key_.find(job.key); it != by_key_.end()) supersede_for(it->second, job.request);
  if (!job.background) cancel_background(&job.request);
  auto s = std::make_unique<State>();
  s->id = id;
  s->job = std::move(job);
  s->cancel_flag = std::make_shared<std::atomic<bool>>(false);
  s->stop_draft_flag = std::make_shared<std::atomic<bool>>(false);
  s->submitted = Clock::now();
  by_key_[s->job.key] = id;
  int debounce = s->job.debounce_ms;
  State& st = *s;
  jobs_[id] = std::move(s);
  if (debounce <= 0) {
    debounce_over(id);
    return id;
  }
  st.timer = new TimerBox{{}, this, id};
  uv_timer_init(loop_, &st.timer->timer);
  st.timer->timer.data = st.timer;
  uv_update_time(loop_);  // the loop's cached time may be old after a long callback
  uv_timer_start(
      &st.timer->timer,
      [](uv_timer_t* t) {
        auto* box = static_cast<TimerBox*>(t->data);
        box->self->debounce_over(box->id);
      },
      static_cast<uint64_t>(debounce), 0);
  return id;
}

void Scheduler::stop_timer(State& s) {
  if (!s.timer) return;
  uv_timer_stop(&s.timer->timer);
  uv_close(reinterpret_cast<uv_handle_t*>(&s.timer->timer),
           [](uv_handle_t* h) { delete static_cast<TimerBox*>(h->data); });
  s.timer = nullptr;
}

void Scheduler::debounce_over(JobId id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  State& s = *it->second;
  stop_timer(s);
  s.ready_at = Clock::now();
  if (s.job.still_current && !s.job.still_current()) {
    JobResult r;
    r.outcome = Outcome::kStale;
    r.debounce_ms = ms(s.ready_at - s.submitted);
    finish(id, std::move(r));
    return;
  }
  s.phase = Phase::kReady;
  make_ready(s);
  dispatch_next();
}

void Scheduler::make_ready(State& s) {
  auto is_background = [this](const Item& item) {
    auto it = jobs_.find(item.job);
    return item.job != 0 && it != jobs_.end() && it->second->job.background;
  };
  if (s.job.background) {
    ready_.push_back(Item{s.id, nullptr, nullptr});
    return;
  }
  ready_.insert(std::find_if(ready_.begin(), ready_.end(), is_background), Item{s.id, nullptr, nullptr});
  auto run = jobs_.find(running_);
  if (run == jobs_.end() || !run->second->job.background) return;
  State& r = *run->second;
  // A prefill of this prompt, or of its start, is work the request would redo: let it end.
  if (worth_finishing(r, s.job.request)) {
    s.waiting_for = State::WaitingFor::kOwnPrefill;
    return;
  }
  s.waiting_for = State::WaitingFor::kBackground;
  if (!r.cancel_requested) cancel_with(r.id, Outcome::kSuperseded);
}

void Scheduler::run_on_engine_thread(std::function<void()> fn, std::function<void()> then) {
  if (closed_) return;
  ready_.push_back(Item{0, std::move(fn), std::move(then)});
  dispatch_next();
}

void Scheduler::dispatch_next() {
  if (busy_ || closed_ || ready_.empty()) return;
  Item item = std::move(ready_.front());
  ready_.pop_front();
  std::function<void()> task;
  if (item.job == 0) {
    task = [this, fn = std::move(item.fn), then = std::move(item.then)]() mutable {
      fn();
      post([this, then = std::move(then)] {
        busy_ = false;
        if (then) then();
        dispatch_next();
      });
    };
  } else {
    auto it = jobs_.find(item.job);
    if (it == jobs_.end()) return dispatch_next();
    State& s = *it->second;
    s.phase = Phase::kRunning;
    s.started = Clock::now();
    running_ = s.id;
    if (backend_) return start_on_backend(s);
    CompletionRequest request = s.job.request;
    request.cancel = s.cancel_flag;
    request.stop_draft = s.stop_draft_flag;
    JobId id = s.id;
    task = [this, id, engine = engine_, request = std::move(request)] {
      if (!engine) {
        CompletionEvent e;
        e.kind = CompletionEvent::Kind::kError;
        e.error = "no model is loaded";
        e.failure = CompletionEvent::Failure::kNoModel;
        post([this, id, e] { on_engine_event(id, e); });
      } else {
        try {
          engine->complete(request, [&](const CompletionEvent& e) { post([this, id, e] { on_engine_event(id, e); }); });
        } catch (const std::exception& ex) {
          CompletionEvent e;
          e.kind = CompletionEvent::Kind::kError;
          e.error = std::string("engine failed: ") + ex.what();
          post([this, id, e] { on_engine_event(id, e); });
        }
      }
      post([this, id] {
        busy_ = false;
        running_ = 0;
        if (jobs_.count(id)) {  // the engine broke its contract: no final event
          JobResult r;
          r.outcome = Outcome::kError;
          r.error = "the engine ended without a result";
          finish(id, std::move(r));
        }
        dispatch_next();
      });
    };
  }
  busy_ = true;
  {
    std::lock_guard lock(task_mu_);
    task_ = std::move(task);
  }
  task_cv_.notify_one();
}

void Scheduler::start_on_backend(State& s) {
  busy_ = true;
  s.on_backend = true;
  CompletionRequest request = s.job.request;
  request.cancel = s.cancel_flag;
  // Through the outbox like the engine thread's events: a backend may call back from
  // inside start() or cancel(), and the scheduler must not be re-entered there.
  backend_->start(s.id, request, [this, id = s.id](const CompletionEvent& e) {
    post([this, id, e] {
      on_engine_event(id, e);
      if (e.kind == CompletionEvent::Kind::kText) return;
      busy_ = false;
      running_ = 0;
      dispatch_next();
    });
  });
}

void Scheduler::set_backend(std::shared_ptr<Backend> backend) {
  if (backend_ == backend) return;
  if (backend_) {
    std::vector<JobId> running;
    for (const auto& [id, s] : jobs_)
      if (s->on_backend) running.push_back(id);
    for (JobId id : running) cancel_with(id, Outcome::kCancelled);
    backend_->close();
  }
  backend_ = std::move(backend);
}

const ModelInfo* Scheduler::model_info() const {
  if (backend_) return &backend_->info();
  return engine_ ? &engine_->info() : nullptr;
}

void Scheduler::on_engine_event(JobId id, const CompletionEvent& e) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  State& s = *it->second;
  if (e.kind == CompletionEvent::Kind::kText) {
    if (s.cancel_requested) return;  // nobody wants stale text
    s.text += e.text;
    if (s.first_text_ms < 0) s.first_text_ms = ms(Clock::now() - s.submitted);
    if (s.job.on_text) s.job.on_text(e.text, s.text, e.timings.confidence);
    return;
  }
  JobResult r;
  r.timings = e.timings;
  r.stop = e.stop;
  if (s.cancel_requested) {
    r.outcome = s.cancel_reason;
  } else if (e.kind == CompletionEvent::Kind::kError) {
    r.outcome = e.failure == CompletionEvent::Failure::kNoModel ? Outcome::kNoEngine : Outcome::kError;
    r.error = e.error;
  } else {
    r.outcome = Outcome::kDone;
    r.text = e.text;
  }
  // An early prefill that computed its request's whole prompt ends that request's debounce:
  // its first token costs nothing now (the session keeps the logits), and decoding the
  // rest is ended within a layer by the next keystroke.
  std::vector<JobId> prefilled_for;
  if (r.outcome == Outcome::kDone && s.job.background && s.job.request.prefill_only)
    for (const auto& [other, o] : jobs_)
      if (o->phase == Phase::kDebounce && !o->job.background && same_prompt(o->job.request, s.job.request))
        prefilled_for.push_back(other);
  finish(id, std::move(r));
  for (JobId other : prefilled_for) debounce_over(other);
}

void Scheduler::finish(JobId id, JobResult r) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  std::unique_ptr<State> s = std::move(it->second);
  jobs_.erase(it);
  stop_timer(*s);
  if (auto k = by_key_.find(s->job.key); k != by_key_.end() && k->second == id) by_key_.erase(k);
  auto now = Clock::now();
  if (s->phase != Phase::kDebounce) r.debounce_ms = ms(s->ready_at - s->submitted);
  else r.debounce_ms = ms(now - s->submitted);
  if (s->phase == Phase::kRunning) {
    r.queue_ms = ms(s->started - s->ready_at);
    r.engine_ms = ms(now - s->started);
  } else if (s->phase == Phase::kReady) {
    r.queue_ms = ms(now - s->ready_at);
  }
  if (s->waiting_for == State::WaitingFor::kBackground) r.background_wait_ms = r.queue_ms;
  if (s->waiting_for == State::WaitingFor::kOwnPrefill) r.own_prefill_wait_ms = r.queue_ms;
  r.first_text_ms = s->first_text_ms;
  if (s->job.on_done) s->job.on_done(std::move(r));
}

void Scheduler::cancel_with(JobId id, Outcome reason) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  State& s = *it->second;
  if (s.phase == Phase::kRunning) {
    // The engine thread owns it now: flag it; the result comes back as cancelled.
    s.cancel_requested = true;
    s.cancel_reason = reason;
    s.cancel_flag->store(true);
    s.stop_draft_flag->store(true);
    if (auto k = by_key_.find(s.job.key); k != by_key_.end() && k->second == id) by_key_.erase(k);
    if (s.on_backend && backend_) backend_->cancel(id);  // drops the transfer now
    return;
  }
  if (s.phase == Phase::kReady)
    ready_.erase(std::remove_if(ready_.begin(), ready_.end(), [&](const Item& i) { return i.job == id; }), ready_.end());
  JobResult r;
  r.outcome = reason;
  finish(id, std::move(r));
}

bool Scheduler::cancel(JobId id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second->cancel_requested) return false;
  cancel_with(id, Outcome::kCancelled);
  return true;
}

int Scheduler::cancel_background(const CompletionRequest* incoming) {
  std::vector<JobId> ids;
  for (const auto& [id, s] : jobs_)
    if (s->job.background && !s->cancel_requested) ids.push_back(id);
  int ended = 0;
  for (JobId id : ids) {
    if (incoming) supersede_for(id, *incoming);
    else cancel_with(id, Outcome::kSuperseded);
    ended += jobs_.count(id) == 0 || jobs_[id]->cancel_requested;
  }
  return ended;
}

bool Scheduler::worth_finishing(const State& s, const CompletionRequest& incoming) {
  return s.phase == Phase::kRunning && !s.on_backend && s.job.background && s.job.request.prefill_only &&
         !s.cancel_requested && extends_prompt(s.job.request, incoming);
}

void Scheduler::supersede_for(JobId id, const CompletionRequest& incoming) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  State& s = *it->second;
  if (worth_finishing(s, incoming)) {
    if (auto k = by_key_.find(s.job.key); k != by_key_.end() && k->second == id) by_key_.erase(k);
    // The model's prefill is the newer prompt's start; the draft model's part of a warm-up
    // is not work the newer job waits for.
    s.stop_draft_flag->store(true);
    return;
  }
  cancel_with(id, Outcome::kSuperseded);
}

bool Scheduler::supersede(const std::string& key) {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return false;
  cancel_with(it->second, Outcome::kSuperseded);
  return true;
}

void Scheduler::close() {
  if (closed_) return;
  std::vector<JobId> ids;
  for (const auto& [id, s] : jobs_) ids.push_back(id);
  for (JobId id : ids) cancel_with(id, Outcome::kCancelled);
  closed_ = true;
  ready_.clear();
  {
    std::lock_guard lock(task_mu_);
    stop_ = true;
  }
  task_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (backend_) backend_->close();  // cancelled above; no events after this
  // Results of cancelled running jobs arrived in the outbox: deliver them now.
  drain();
  for (auto& [id, s] : jobs_) {
    JobResult r;
    r.outcome = Outcome::kCancelled;
    if (s->job.on_done) s->job.on_done(std::move(r));
  }
  jobs_.clear();
  by_key_.clear();
  uv_close(reinterpret_cast<uv_handle_t*>(async_), [](uv_handle_t* h) { delete reinterpret_cast<uv_async_t*>(h); });
  async_ = nullptr;
}

}  // namespace wafer
