// The scheduler between the LSP loop and the engine: debounces completion requests,
// cancels stale ones (a newer request for the same document supersedes the older), and
// runs one job at a time: on its own engine thread for the in-process engine, or on the
// loop thread through a non-blocking Backend (a remote server, backend.h) when one is set.
// Results and streamed text come back to the loop thread through a uv_async_t (a
// backend's events too, so they never re-enter the scheduler); the loop thread never
// waits on the engine (only short critical sections on the hand-off queues).
//
// Every submitted job ends with exactly one on_done call on the loop thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <uv.h>

#include "engine/engine.h"
#include "server/backends/backend.h"

namespace wafer {

class Scheduler {
 public:
  using JobId = uint64_t;

  enum class Outcome {
    kDone,        // the engine finished (text may be empty)
    kError,       // the engine reported an error
    kCancelled,   // cancel() or close()
    kSuperseded,  // a newer job for the same key replaced it
    kStale,       // still_current() said no when the debounce ended
    kNoEngine,    // no engine is loaded
  };

  struct JobResult {
    Outcome outcome = Outcome::kDone;
    std::string text;
    std::string error;
    StopReason stop = StopReason::kEndOfText;
    Timings timings;          // from the engine
    double debounce_ms = 0;   // submit -> debounce over
    double queue_ms = 0;      // debounce over -> engine thread starts it
    // Of queue_ms, the time a request waited for background work to give way (a preempted
    // job stops within a layer of the forward pass): what background work cost it.
    double background_wait_ms = 0;
    // Of queue_ms, the time it waited for an early prefill of its own prompt to finish: work
    // the request would have done itself, kept rather than preempted.
    double own_prefill_wait_ms = 0;
    double engine_ms = 0;     // engine thread start -> result back on the loop thread
    double first_text_ms = -1;  // submit -> first streamed text on the loop thread
  };

  struct Job {
    std::string key;      // e.g. the document URI: a newer job with this key supersedes
    // 0: start as soon as the engine is free. The wait also ends when a prefill-only
    // background job with this job's prompt (its early prefill) finishes.
    int debounce_ms = 0;
    // Background work (early prefill, warm-up, decoding ahead of the cursor, alternatives):
    // any later submit of a job that is not background, whatever its key, ends it as
    // superseded at once (a running one at the engine's next cancellation check), and a
    // request whose debounce ends goes ahead of queued background work and preempts a
    // running one, so background work never delays a request. The one exception: a
    // prefill-only background job with the request's own prompt runs on, since the
    // request would redo exactly that work. Likewise a running prefill-only job whose
    // prompt the newer job's extends (the user typed on: same document and context, the
    // prefix grown at its end) is not ended but runs to its end: its work is the start of
    // the newer prompt's, and ending it inside its chunk would throw that work away, so
    // that on a machine slower than the typing each keystroke would start over.
    bool background = false;
    CompletionRequest request;  // its cancel flag is set by the scheduler
    std::function<bool()> still_current;  // optional, checked when the debounce ends
    // confidence: the engine's confidence in the text so far (Timings::confidence).
    std::function<void(const std::string& delta, const std::string& text_so_far, const Timings::Confidence& confidence)>
        on_text;
    std::function<void(JobResult result)> on_done;
  };

  explicit Scheduler(uv_loop_t* loop);
  // close() must have been called and the loop run until its handles closed.
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  void set_engine(std::shared_ptr<Engine> engine) { engine_ = std::move(engine); }
  const std::shared_ptr<Engine>& engine() const { return engine_; }
  // A backend takes the jobs instead of the engine. Replacing one cancels its running job
  // and closes it; nullptr goes back to the engine.
  void set_backend(std::shared_ptr<Backend> backend);
  const std::shared_ptr<Backend>& backend() const { return backend_; }
  // The model that answers (the backend's or the engine's); null when there is none.
  const ModelInfo* model_info() const;
  // What answers jobs now: the in-process engine or a remote backend.
  enum class Provider { kLocalEngine, kRemoteBackend };
  Provider provider() const { return backend_ ? Provider::kRemoteBackend : Provider::kLocalEngine; }
  // Its name as reported (served_by, statistics): "engine" or the backend's name.
  std::string served_by() const { return backend_ ? backend_->name() : "engine"; }

  JobId submit(Job job);
  // Ends every pending or running background job as superseded, except a running
  // prefill-only job whose prompt `incoming` extends (see Job::background). Returns how many.
  int cancel_background(const CompletionRequest* incoming = nullptr);
  // Cancels a job: at once if it has not started, else when the engine stops (it checks
  // the flag between tokens). Returns false for an unknown or finished job.
  bool cancel(JobId id);
  // Ends the pending or running job of a key as superseded (an answer was found without
  // the engine). Returns false when the key has none.
  bool supersede(const std::string& key);
  // Runs fn on the engine thread in turn with jobs (model loading), then `then` on the
  // loop thread.
  void run_on_engine_thread(std::function<void()> fn, std::function<void()> then);

  // Cancels everything, joins the engine thread and closes the uv handles.
  void close();
  size_t active_jobs() const { return jobs_.size(); }
  bool engine_busy() const { return busy_; }

 private:
  using Clock = std::chrono::steady_clock;
  enum class Phase { kDebounce, kReady, kRunning };
  struct TimerBox;
  struct State {
    JobId id = 0;
    Job job;
    Phase phase = Phase::kDebounce;
    TimerBox* timer = nullptr;
    std::shared_ptr<std::atomic<bool>> cancel_flag;
    std::shared_ptr<std::atomic<bool>> stop_draft_flag;  // CompletionRequest::stop_draft
    Outcome cancel_reason = Outcome::kCancelled;
    bool cancel_requested = false;
    bool on_backend = false;  // running on backend_, not on the engine thread
    Clock::time_point submitted, ready_at, started;
    enum class WaitingFor { kNothing, kBackground, kOwnPrefill } waiting_for = WaitingFor::kNothing;
    double first_text_ms = -1;
    std::string text;
  };
  struct Item {  // entry of the ready queue: a job or a plain engine-thread task
    JobId job = 0;
    std::function<void()> fn, then;
  };

  void debounce_over(JobId id);
  // A request is ready: queue it ahead of background work; preempt a running background
  // job unless it is the prefill of this request's own prompt.
  void make_ready(State& s);
  void dispatch_next();
  void cancel_with(JobId id, Outcome reason);
  // Ends a job as superseded by `incoming`, unless it is a running prefill-only job whose
  // prompt `incoming` extends: that one runs to its end (no longer the owner of its key).
  void supersede_for(JobId id, const CompletionRequest& incoming);
  // Whether `s` is a running prefill-only background job whose work is the start of
  // `incoming`'s prompt: worth letting it end rather than ending it.
  static bool worth_finishing(const State& s, const CompletionRequest& incoming);
  void finish(JobId id, JobResult result);
  void on_engine_event(JobId id, const CompletionEvent& e);
  void start_on_backend(State& s);
  void post(std::function<void()> fn);  // engine thread -> loop thread
  void drain();
  void engine_main();
  void stop_timer(State& s);

  uv_loop_t* loop_;
  uv_async_t* async_ = nullptr;
  std::shared_ptr<Engine> engine_;
  std::shared_ptr<Backend> backend_;
  JobId next_id_ = 1;
  std::map<JobId, std::unique_ptr<State>> jobs_;
  std::map<std::string, JobId> by_key_;
  std::deque<Item> ready_;
  bool busy_ = false;
  JobId running_ = 0;  // the job on the engine thread or backend (0: none, or a plain task)
  bool closed_ = false;

  // Hand-off to the engine thread (one task at a time).
  std::mutex task_mu_;
  std::condition_variable task_cv_;
  std::function<void()> task_;
  bool stop_ = false;
  // Hand-off back to the loop thread.
  std::mutex out_mu_;
  std::vector<std::function<void()>> outbox_;
  std::thread thread_;
};

const char* to_string(Scheduler::Outcome o);

}  // namespace wafer
