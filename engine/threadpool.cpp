#include "engine/threadpool.h"

#include <algorithm>

namespace wafer {

ThreadPool::ThreadPool(int n_threads) {
  if (n_threads <= 0) n_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 1; i < n_threads; ++i) workers_.emplace_back([this, i] { worker(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::run_impl(void (*call)(void*, int), void* ctx) {
  if (workers_.empty()) {
    call(ctx, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    call_ = call;
    ctx_ = ctx;
    pending_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  start_cv_.notify_all();
  call(ctx, 0);
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [this] { return pending_ == 0; });
}

void ThreadPool::worker(int index) {
  uint64_t seen = 0;
  for (;;) {
    void (*call)(void*, int);
    void* ctx;
    {
      std::unique_lock<std::mutex> lock(mu_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      call = call_;
      ctx = ctx_;
    }
    call(ctx, index);
    std::lock_guard<std::mutex> lock(mu_);
    if (--pending_ == 0) done_cv_.notify_one();
  }
}

Slice thread_slice(int64_t n, int index, int count, int64_t align) {
  const int64_t units = (n + align - 1) / align;
  const int64_t lo = units * index / count, hi = units * (index + 1) / count;
  return {std::min(n, lo * align), std::min(n, hi * align)};
}

}  // namespace wafer
