// The scheduler with a fake engine held at a latch: latest-wins cancellation, debounce,
// invoked requests without debounce, one job at a time, and streaming back to the loop.
// No sleeps: the loop runs until the awaited callback happened (with a watchdog).
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <optional>

#include "tests/support/fixtures/fake_engine.h"
#include "server/service/scheduler.h"

using namespace wafer;
using Outcome = Scheduler::Outcome;

namespace {

struct Loop {
  uv_loop_t loop;
  Loop() { uv_loop_init(&loop); }
  ~Loop() {
    uv_run(&loop, UV_RUN_DEFAULT);  // finish closing handles
    uv_loop_close(&loop);
  }
  // Runs the loop until pred() holds; fails after 10 s (a hang, not a timing assumption).
  // A 1 ms tick wakes the loop so that pred() may also watch state the engine thread
  // changes without messaging the loop (e.g. FakeEngine::held()).
  void run_until(const std::function<bool()>& pred) {
    uv_timer_t watchdog, tick;
    uv_timer_init(&loop, &watchdog);
    uv_timer_init(&loop, &tick);
    bool expired = false;
    watchdog.data = &expired;
    uv_timer_start(&watchdog, [](uv_timer_t* t) { *static_cast<bool*>(t->data) = true; }, 10000, 0);
    uv_timer_start(&tick, [](uv_timer_t*) {}, 1, 1);
    while (!pred() && !expired) uv_run(&loop, UV_RUN_ONCE);
    uv_close(reinterpret_cast<uv_handle_t*>(&watchdog), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&tick), nullptr);
    uv_run(&loop, UV_RUN_NOWAIT);
    REQUIRE_FALSE(expired);
  }
};

std::shared_ptr<FakeEngine> fake(const std::string& text, bool hold = false) {
  FakeScript s;
  s.text = text;
  s.chunk_bytes = 2;
  auto e = std::make_shared<FakeEngine>(s);
  e->hold(hold);
  return e;
}

struct Recorder {
  std::optional<Scheduler::JobResult> result;
  std::string streamed;
  Scheduler::Job job(const std::string& key, int debounce_ms = 0) {
    Scheduler::Job j;
    j.key = key;
    j.debounce_ms = debounce_ms;
    j.request.prefix = "def f(";
    j.request.max_tokens = 100;
    j.on_text = [this](const std::string& delta, const std::string& so_far, const Timings::Confidence&) {
      streamed += delta;
      CHECK(so_far == streamed);
    };
    j.on_done = [this](Scheduler::JobResult r) {
      REQUIRE_FALSE(result);  // exactly once
      result = std::move(r);
    };
    return j;
  }
  bool done() const { return result.has_value(); }
};

}  // namespace

TEST_CASE("scheduler: a job runs on the engine thread and streams back", "[scheduler]") {
  Loop l;
  Scheduler s(&l.loop);
  auto engine = fake("x):\n    pass");
  s.set_engine(engine);
  Recorder a;
  s.submit(a.job("doc"));
  l.run_until([&] { return a.done(); });
  CHECK(a.result->outcome == Outcome::kDone);
  CHECK(a.result->text == "x):\n    pass");
  CHECK(a.streamed == a.result->text);
  CHECK(a.result->first_text_ms >= 0);
  CHECK(engine->calls() == 1);
  s.close();
}

TEST_CASE("scheduler: a newer job for the same key supersedes the running one", "[scheduler]") {
  Loop l;
  Scheduler s(&l.loop);
  auto engine = fake("abc", /*hold=*/true);
  s.set_engine(engine);
  Recorder first, second, other;
  s.submit(first.job("doc"));
  REQUIRE(engine->wait_until_held(1));  // the first job is inside the engine now
  s.submit(second.job("doc"));
  l.run_until([&] { return first.done(); });
  CHECK(first.result->outcome == Outcome::kSuperseded);
  CHECK(first.streamed.empty());
  engine->hold(false);
  engine->release();
  l.run_until([&] { return second.done(); });
  CHECK(second.result->outcome == Outcome::kDone);
  CHECK(second.result->text == "abc");
  // A different key does not cancel.
  s.submit(other.job("other"));
  l.run_until([&] { return other.done(); });
  CHECK(other.result->outcome == Outcome::kDone);
  s.close();
}

TEST_CASE("scheduler: one engine job at a time / queued jobs wait their turn", "[scheduler]") {
  Loop l;
  Scheduler s(&l.loop);
  auto engine = fake("z", /*hold=*/true);
  s.set_engine(engine);
  Recorder a, b;
  s.submit(a.job("a"));
  REQUIRE(engine->wait_until_held(1));
  s.submit(b.job("b"));
  l.run_until([&] { return !s.engine_busy() || s.active_jobs() == 2; });
  CHECK(engine->calls() == 1);  // b waits while a holds the engine thread
  CHECK(s.engine_busy());
  engine->release();
  l.run_until([&] { return a.done(); });
  // b is dispatched by a second message from the engine thread, which may reach the loop
  // after a's result: keep the loop running until b is at the latch.
  l.run_until([&] { return engine->held() == 2; });  // b started only after a finished
  CHECK_FALSE(b.done());
  engine->release();
  l.run_until([&] { return b.done(); });
  CHECK(a.result->outcome == Outcome::kDone);
  CHECK(b.result->outcome == Outcome::kDone);
  CHECK(b.result->queue_ms >= 0);
  s.close();
}

TEST_CASE("scheduler: background work yields to any other job at once", "[scheduler]") {
  Loop l;
  Scheduler s(&l.loop);
  auto engine = fake("ahead", /*hold=*/true);
  s.set_engine(engine);
  Recorder ahead, request, queued_ahead, later_ahead;
  Scheduler::Job bg = ahead.job("ahead:doc");
  bg.background = true;
  s.submit(std::move(bg));
  REQUIRE(engine->wait_until_held(1));  // the background job holds the engine
  // A request for another document: the background job is cancelled, not waited for.
  s.submit(request.job("other"));
  l.run_until([&] { return ahead.done(); });
  CHECK(ahead.result->outcome == Outcome::kSuperseded);
  // The loop dispatches the request once the engine thread reports it is free.
  l.run_until([&] { return engine->held() == 2; });  // (with the background job still held it could not)
  CHECK(engine->calls() == 2);
  // Background work queued behind the request never runs before it and is dropped by the
  // next request; background work of its own does not cancel other background work.
  Scheduler::Job queued = queued_ahead.job("ahead:doc");
  queued.background = true;
  s.submit(std::move(queued));
  CHECK(s.cancel_background() == 1);
  CHECK(queued_ahead.result->outcome == Outcome::kSuperseded);
  engine->hold(false);
  engine->release();
  l.run_until([&] { return request.done(); });
  CHECK(request.result->outcome == Outcome::kDone);
  Scheduler::Job again = later_ahead.job("ahead:doc");
  again.background = true;
  s.submit(std::move(again));
  l.run_until([&] { return later_ahead.done(); });
  CHECK(later_ahead.result->outcome == Outcome::kDone);
  CHECK(engine->calls() == 3);  // the cancelled queued job never reached the engine
  s.close();
}

TEST_CASE("scheduler: a request whose debounce ends preempts background work, but not the prefill of its own prompt",
          "[scheduler]") {
  Loop l;
  Scheduler s(&l.loop);
  auto engine = fake("x", /*hold=*/true);
  s.set_engine(engine);
  SECTION("other background work is preempted and the wait is reported") {
    Recorder request, warm, queued;
    s.submit(request.job("doc", /*debounce_ms=*/5));
    // Background work submitted during the debounce (as the early prefill and the warm-up
    // are): a warm-up elsewhere runs, another job queues.
    Scheduler::Job w = warm.job("warm");
    w.background = true;
    w.request.prefill_only = true;
    w.request.prefix = "elsewhere";
    s.submit(std::move(w));
    REQUIRE(engine->wait_until_held(1));
    Scheduler::Job q = queued.job("ahead:doc");
    q.background = true;
    s.submit(std::move(q));
    l.run_until([&] { return warm.done(); });  // the debounce ended and preempted it
    CHECK(warm.result->outcome == Outcome::kSuperseded);
    l.run_until([&] { return engine->held() == 2; });
    CHECK(engine->last_request().prefix == "def f(");  // the request, ahead of the queued job
    engine->hold(false);
    engine->release();
    l.run_until([&] { return request.done() && queued.done(); });
    CHECK(request.result->outcome == Outcome::kDone);
    CHECK(request.result->background_wait_ms == request.result->queue_ms);
    CHECK(request.result->own_prefill_wait_ms == 0);
    CHECK(queued.result->outcome == Outcome::kDone);  // it ran after the request
  }
  SECTION("an early prefill of the request's own prompt runs on") {
    Recorder request, early;
    bool debounced = false;
    Scheduler::Job r = request.job("doc", /*debounce_ms=*/5);
    r.still_current = [&] { return debounced = true; };  // asked when the debounce ends
    s.submit(std::move(r));
    Scheduler::Job e = early.job("warm");
    e.background = true;
    e.request.prefill_only = true;  // the same prompt as the request's
    s.submit(std::move(e));
    REQUIRE(engine->wait_until_held(1));
    // The request's debounce ends while the prefill is held; it is not cancelled.
    l.run_until([&] { return debounced; });
    CHECK_FALSE(early.done());
    engine->hold(false);
    engine->release();
    l.run_until([&] { return request.done(); });
    CHECK(early.result->outcome == Outcome::kDone);
    CHECK(request.result->outcome == Outcome::kDone);
    CHECK(request.result->background_wait_ms == 0);
  }
  SECTION("an early prefill that finishes first ends its request's debounce") {
    Recorder request, early, other;
    s.submit(request.job("doc", /*debounce_ms=*/10000));  // the watchdog fails the test long before
    Scheduler::Job o = other.job("other", /*debounce_ms=*/10000);
    o.request.prefix = "another prompt";
    s.submit(std::move(o));
    Scheduler::Job e = early.job("warm");
    e.background = true;
    e.request.prefill_only = true;  // the same prompt as the request's
    s.submit(std::move(e));
    engine->hold(false);
    engine->release();
    l.run_until([&] { return request.done(); });
    CHECK(early.result->outcome == Outcome::kDone);
    CHECK(request.result->outcome == Outcome::kDone);
    CHECK(request.result->debounce_ms < 10000);
    CHECK_FALSE(other.done());  // a request with another prompt still waits out its debounce
    CHECK(s.supersede("other"));  // ended here: its recorder lives only in this section
    CHECK(other.result->outcome == Outcome::kSuperseded);
  }
  SECTION("typing on does not end a running early prefill of the prompt's start; anything else does") {
    // Keystroke 1: its request debounces, its early prefill holds the engine.
    Recorder request1, early1, request2, early2, request3, early3;
    s.submit(request1.job("doc", /*debounce_ms=*/10000));
    Scheduler::Job e1 = early1.job("warm");
    e1.background = true;
    e1.request.prefill_only = true;
    s.submit(std::move(e1));
    REQUIRE(engine->wait_until_held(1));
    // Keystroke 2 types on at the cursor: the running prefill computes the start of its
    // prompt and runs on; the older request is superseded, the new prefill queues.
    Scheduler::Job r2 = request2.job("doc", /*debounce_ms=*/10000);
    r2.request.prefix = "def f(x";
    s.submit(std::move(r2));
    Scheduler::Job e2 = early2.job("warm");
    e2.background = true;
    e2.request.prefill_only = true;
    e2.request.prefix = "def f(x";
    s.submit(std::move(e2));
    l.run_until([&] { return request1.done(); });
    CHECK(request1.result->outcome == Outcome::kSuperseded);
    CHECK_FALSE(early1.done());
    // Keystroke 3 deletes back past the prefill's cursor: its prompt no longer starts with
    // the running prefill's, which is ended now, as is the queued one.
    Scheduler::Job r3 = request3.job("doc", /*debounce_ms=*/0);
    r3.request.prefix = "def ";
    s.submit(std::move(r3));
    Scheduler::Job e3 = early3.job("warm");
    e3.background = true;
    e3.request.prefill_only = true;
    e3.request.prefix = "def ";
    s.submit(std::move(e3));
    l.run_until([&] { return early1.done() && early2.done(); });
    CHECK(early1.result->outcome == Outcome::kSuperseded);
    CHECK(early2.result->outcome == Outcome::kSuperseded);
    engine->hold(false);
    engine->release();
    l.run_until([&] { return request3.done() && early3.done(); });
    CHECK(request3.result->outcome == Outcome::kDone);
  }
  s.close();
}

TEST_CASE("scheduler: debounce waits / and a new keystroke restarts it without engine work", "[scheduler]") {
  Loop l;
  Scheduler s(&l.loop);
  auto engine = fake("ok");
  s.set_engine(engine);
  Recorder first, second;
  auto t0 = std::chrono::steady_clock::now();
  s.submit(first.job("doc", /*debounce_ms=*/30));
  s.submit(second.job("doc", 30));
  CHECK(first.done());  // cancelled at once, before the engine saw it
  CHECK(first.result->outcome == Outcome::kSuperseded);
  l.run_until([&] { return second.done(); });
  double waited = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  CHECK(second.result->outcome == Outcome::kDone);
  CHECK(waited >= 29);
  CHECK(second.result->debounce_ms >= 29);
  CHECK(engine->calls() == 1);
  s.close();
}

TEST_CASE("scheduler: zero debounce (invoked) starts at once", "[scheduler]") {
  Loop l;
  Scheduler s(&l.loop);
  auto engine = fake("now", /*hold=*/true);
  s.set_engine(engine);
  Recorder r;
  s.submit(r.job("doc", 0));
  REQUIRE(engine->wait_until_held(1));  // reached the engine without running the loop at all
  engine->release();
  l.run_until([&] { return r.done(); });
  CHECK(r.result->debounce_ms < 5);
  s.close();
}

TEST_CASE("scheduler: cancel before and during the engine, stale at debounce end", "[scheduler]") {
  Loop l;
  Scheduler s(&l.loop);
  auto engine = fake("abc", /*hold=*/true);
  s.set_engine(engine);
  Recorder waiting, running, stale;
  auto id = s.submit(waiting.job("w", 1000));
  CHECK(s.cancel(id));
  CHECK(waiting.result->outcome == Outcome::kCancelled);
  CHECK_FALSE(s.cancel(id));
  auto rid = s.submit(running.job("r"));
  REQUIRE(engine->wait_until_held(1));
  CHECK(s.cancel(rid));
  l.run_until([&] { return running.done(); });
  CHECK(running.result->outcome == Outcome::kCancelled);
  auto job = stale.job("s", 1);
  job.still_current = [] { return false; };
  s.submit(std::move(job));
  l.run_until([&] { return stale.done(); });
  CHECK(stale.result->outcome == Outcome::kStale);
  CHECK(engine->calls() == 1);
  s.close();
}

TEST_CASE("scheduler: no engine / engine errors / and close() finishing every job", "[scheduler]") {
  Loop l;
  Scheduler s(&l.loop);
  Recorder none;
  s.submit(none.job("a"));
  l.run_until([&] { return none.done(); });
  CHECK(none.result->outcome == Outcome::kNoEngine);
  FakeScript failing;
  failing.fail = "boom";
  s.set_engine(std::make_shared<FakeEngine>(failing));
  Recorder err;
  s.submit(err.job("b"));
  l.run_until([&] { return err.done(); });
  CHECK(err.result->outcome == Outcome::kError);
  CHECK(err.result->error == "boom");
  auto held = fake("x", true);
  s.set_engine(held);
  Recorder pending, running;
  s.submit(running.job("r"));
  l.run_until([&] { return held->held() == 1; });  // the engine thread may still be reporting err's end
  s.submit(pending.job("p", 5000));
  s.close();
  CHECK(running.result->outcome == Outcome::kCancelled);
  CHECK(pending.result->outcome == Outcome::kCancelled);
}

TEST_CASE("scheduler: engine-thread tasks run in turn and report on the loop", "[scheduler]") {
  Loop l;
  Scheduler s(&l.loop);
  std::thread::id loop_thread = std::this_thread::get_id(), task_thread;
  bool then_ran = false;
  s.run_on_engine_thread([&] { task_thread = std::this_thread::get_id(); },
                         [&] { then_ran = std::this_thread::get_id() == loop_thread; });
  l.run_until([&] { return then_ran; });
  CHECK(task_thread != loop_thread);
  s.close();
}

namespace {

// A loop-thread backend driven by the test: records starts and cancels; emits on demand.
class ManualBackend : public Backend {
 public:
  std::map<uint64_t, CompletionCallback> running;
  std::vector<uint64_t> cancelled;
  bool closed = false;
  const std::string& name() const override { return name_; }
  const ModelInfo& info() const override { return info_; }
  void start(uint64_t id, const CompletionRequest&, CompletionCallback cb) override { running[id] = std::move(cb); }
  void cancel(uint64_t id) override {
    auto it = running.find(id);
    if (it == running.end()) return;
    cancelled.push_back(id);
    CompletionEvent e;
    e.kind = CompletionEvent::Kind::kDone;
    e.stop = StopReason::kCancelled;
    auto cb = std::move(it->second);
    running.erase(it);
    cb(e);  // from inside cancel(): the scheduler must defer it
  }
  void close() override { closed = true; }
  void emit(uint64_t id, CompletionEvent::Kind kind, const std::string& text) {
    CompletionEvent e;
    e.kind = kind;
    e.text = text;
    auto cb = running.at(id);
    if (kind != CompletionEvent::Kind::kText) running.erase(id);
    cb(e);
  }

 private:
  std::string name_ = "manual";
  ModelInfo info_{"remote-model", "manual", true, 0, 0};
};

}  // namespace

TEST_CASE("scheduler: jobs on a loop backend stream, supersede (cancelling the transfer) and close", "[scheduler]") {
  Loop l;
  Scheduler s(&l.loop);
  auto b = std::make_shared<ManualBackend>();
  s.set_engine(fake("engine text"));  // a backend takes precedence over the engine
  s.set_backend(b);
  CHECK(s.served_by() == "manual");
  CHECK(s.model_info()->name == "remote-model");
  Recorder a, c;
  s.submit(a.job("doc"));
  l.run_until([&] { return b->running.size() == 1; });
  CHECK(s.engine_busy());
  b->emit(1, CompletionEvent::Kind::kText, "ab");
  l.run_until([&] { return a.streamed == "ab"; });
  s.submit(c.job("doc"));  // supersedes: the backend's transfer is cancelled at once
  l.run_until([&] { return a.result.has_value(); });
  CHECK(a.result->outcome == Outcome::kSuperseded);
  CHECK(b->cancelled == std::vector<uint64_t>{1});
  l.run_until([&] { return b->running.count(2) == 1; });  // the next job starts after it
  b->emit(2, CompletionEvent::Kind::kText, "x");
  b->emit(2, CompletionEvent::Kind::kDone, "xy");
  l.run_until([&] { return c.result.has_value(); });
  CHECK(c.result->outcome == Outcome::kDone);
  CHECK(c.result->text == "xy");
  CHECK_FALSE(s.engine_busy());

  // Replacing the backend cancels its running job and closes it; jobs then go to the new one.
  Recorder d, e;
  s.submit(d.job("other"));
  l.run_until([&] { return b->running.size() == 1; });
  auto b2 = std::make_shared<ManualBackend>();
  s.set_backend(b2);
  CHECK(b->closed);
  l.run_until([&] { return d.result.has_value(); });
  CHECK(d.result->outcome == Outcome::kCancelled);
  s.submit(e.job("other"));
  l.run_until([&] { return b2->running.size() == 1; });
  s.close();
  REQUIRE(e.result.has_value());
  CHECK(e.result->outcome == Outcome::kCancelled);
  CHECK(b2->closed);
}
