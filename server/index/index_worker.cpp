#include "server/index/index_worker.h"

#include <chrono>

#include "server/platform/platform.h"

namespace wafer {

IndexWorker::IndexWorker(uv_loop_t* loop, OnIndex on_index) : on_index_(std::move(on_index)) {
  async_ = new uv_async_t;
  uv_async_init(loop, async_, &IndexWorker::on_async);
  async_->data = this;
  thread_ = std::thread([this] { run(); });
}

IndexWorker::~IndexWorker() { close(); }

void IndexWorker::close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_ && !thread_.joinable()) return;
    stop_ = true;
  }
  cancel_ = true;
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (async_) {
    async_->data = nullptr;
    uv_close(reinterpret_cast<uv_handle_t*>(async_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_async_t*>(h); });
    async_ = nullptr;
  }
}

void IndexWorker::build(std::string root, IndexLimits limits) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    tasks_.clear();  // a new root makes every queued task moot
    tasks_.push_back({true, std::move(root), limits});
  }
  cancel_ = true;  // a build of the old root in progress ends
  cv_.notify_all();
}

void IndexWorker::update(std::string relative) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    tasks_.push_back({false, std::move(relative), {}});
  }
  cv_.notify_all();
}

void IndexWorker::run() {
  os::lower_thread_priority();  // yields to the engine and the loop
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
      if (stop_) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
      if (task.build) cancel_ = false;
    }
    const auto t0 = std::chrono::steady_clock::now();
    std::shared_ptr<const WorkspaceIndex> next;
    if (task.build) {
      limits_ = task.limits;
      next = WorkspaceIndex::build(task.root_or_path, limits_, &cancel_);
      if (cancel_) continue;  // superseded by a newer root, or closing
    } else {
      if (!current_) continue;
      next = current_->with_file(task.root_or_path,
                                 WorkspaceIndex::index_file(current_->root(), task.root_or_path, limits_), limits_);
    }
    current_ = next;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ready_ = std::move(next);
      ready_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (async_) uv_async_send(async_);
    }
  }
}

void IndexWorker::on_async(uv_async_t* handle) {
  auto* self = static_cast<IndexWorker*>(handle->data);
  if (!self) return;
  std::shared_ptr<const WorkspaceIndex> index;
  double ms = 0;
  {
    std::lock_guard<std::mutex> lock(self->mu_);
    index = std::move(self->ready_);
    ms = self->ready_ms_;
  }
  if (index) self->on_index_(std::move(index), ms);
}

}  // namespace wafer
