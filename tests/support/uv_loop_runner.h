// A libuv loop for tests of loop-driven code (the remote backend, HTTP on the loop): run
// it until a condition holds or a timeout passes, and close it with its handles.
#pragma once

#include <uv.h>

#include <chrono>
#include <functional>
#include <thread>

namespace wafer::test {

class UvLoopRunner {
 public:
  UvLoopRunner() { uv_loop_init(&loop_); }
  ~UvLoopRunner() {
    uv_run(&loop_, UV_RUN_DEFAULT);  // let closing handles finish
    uv_loop_close(&loop_);
  }
  UvLoopRunner(const UvLoopRunner&) = delete;
  UvLoopRunner& operator=(const UvLoopRunner&) = delete;

  uv_loop_t* get() { return &loop_; }

  // Runs the loop until pred() is true (returns true) or timeout passes (returns false).
  bool run_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    auto until = std::chrono::steady_clock::now() + timeout;
    while (!pred()) {
      if (std::chrono::steady_clock::now() >= until) return false;
      uv_run(&loop_, UV_RUN_NOWAIT);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return true;
  }
  // Runs the loop for a while whatever happens.
  void run_for(std::chrono::milliseconds d) {
    run_until([] { return false; }, d);
  }

 private:
  uv_loop_t loop_;
};

}  // namespace wafer::test
