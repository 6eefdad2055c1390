// The workspace index's own thread: builds the index of a root (index/workspace_index.h)
// and re-reads single files after they change, at low CPU priority (nice 10 on Linux) so
// it never slows a completion, and hands each new snapshot to the event loop through a
// uv_async handle. The loop is never blocked: it only swaps a shared pointer.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <uv.h>

#include "server/index/workspace_index.h"

namespace wafer {

class IndexWorker {
 public:
  // on_index runs on the loop's thread with each new snapshot and the time it took.
  using OnIndex = std::function<void(std::shared_ptr<const WorkspaceIndex>, double ms)>;
  IndexWorker(uv_loop_t* loop, OnIndex on_index);
  ~IndexWorker();
  IndexWorker(const IndexWorker&) = delete;
  IndexWorker& operator=(const IndexWorker&) = delete;

  // Indexes `root` (an absolute folder path), replacing what was indexed before.
  void build(std::string root, IndexLimits limits);
  // Reads one file (relative to the root) again: changed, created or deleted.
  void update(std::string relative);
  // Ends the thread (a build in progress stops at its next file) and closes the handle.
  // Idempotent; the destructor calls it.
  void close();

 private:
  struct Task {
    bool build = false;
    std::string root_or_path;
    IndexLimits limits;
  };
  void run();
  static void on_async(uv_async_t* handle);

  OnIndex on_index_;
  uv_async_t* async_ = nullptr;  // freed by its close callback
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> tasks_;
  bool stop_ = false;
  std::atomic<bool> cancel_{false};  // the build in progress should stop
  // Produced by the thread, taken by the loop.
  std::shared_ptr<const WorkspaceIndex> ready_;
  double ready_ms_ = 0;
  // The thread's own state: the latest snapshot and its limits.
  std::shared_ptr<const WorkspaceIndex> current_;
  IndexLimits limits_;
};

}  // namespace wafer
