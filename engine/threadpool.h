// A fixed set of persistent worker threads for the forward pass. run(fn) calls fn(i) once on
// each of the pool's threads (the caller is thread 0) and returns when all are done, so a
// kernel splits its work by thread index: each thread owns a fixed slice of every matrix,
// and the same slice lands on the same thread (and its cache) token after token.
// Nothing is allocated per run; run() must not be called concurrently or from inside fn.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace wafer {

class ThreadPool {
 public:
  // n_threads <= 0: one per hardware thread.
  explicit ThreadPool(int n_threads = 1);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  template <typename F>
  void run(F&& fn) {
    using Fn = std::remove_reference_t<F>;
    run_impl([](void* ctx, int i) { (*static_cast<Fn*>(ctx))(i); }, const_cast<void*>(static_cast<const void*>(&fn)));
  }

 private:
  void run_impl(void (*call)(void*, int), void* ctx);
  void worker(int index);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable start_cv_;
  std::condition_variable done_cv_;
  uint64_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  void (*call_)(void*, int) = nullptr;
  void* ctx_ = nullptr;
};

// The half-open range [begin, end) of `n` items that thread `index` of `count` owns
// (contiguous, sizes differ by at most one, multiples of `align` except the last).
struct Slice {
  int64_t begin, end;
};
Slice thread_slice(int64_t n, int index, int count, int64_t align = 1);

}  // namespace wafer
