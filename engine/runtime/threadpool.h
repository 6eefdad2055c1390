// A persistent pool of compute threads for the forward pass: one worker per physical
// core, each pinned to its core, woken for every parallel step and parked between steps
// by a spin-then-sleep barrier. Task i of a run always goes to thread i % threads(), so a
// thread that owns rows [a, b) of a matrix reads the same bytes token after token and
// whatever fits in its core's caches stays there. The calling thread is thread 0 and
// works too. Nothing in run() allocates, locks or makes a system call while the workers
// are still spinning (they fall asleep on a futex only after spin_us idle microseconds):
// a barrier costs a few hundred nanoseconds while the threads are hot.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>


namespace wafer {

// A non-owning reference to a callable `void(int task, int thread)`: run() takes lambdas
// without the allocation std::function may make.
class TaskFn {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, TaskFn>>>
  TaskFn(F&& f)  // NOLINT: implicit by design
      : obj_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, int task, int thread) { (*static_cast<std::remove_reference_t<F>*>(o))(task, thread); }) {}
  void operator()(int task, int thread) const { call_(obj_, task, thread); }

 private:
  void* obj_;
  void (*call_)(void*, int, int);
};

struct ThreadPoolOptions {
  int threads = 0;    // <= 0: one per physical core the process may run on
  bool pin = true;    // pin thread t to the t-th physical core
  int spin_us = 300;  // idle time a worker spins before it sleeps on a futex
};

// The half-open range [begin, end) of n items that thread `index` of `count` owns:
// contiguous, in whole multiples of `align` items (except the end of the range), sizes
// differing by at most one unit.
struct Slice {
  int64_t begin, end;
};
Slice thread_slice(int64_t n, int index, int count, int64_t align = 1);

class ThreadPool {
 public:
  // Starts the workers (throws std::system_error if the OS refuses a thread, like
  // std::thread itself).
  explicit ThreadPool(int n_threads = 0) : ThreadPool(ThreadPoolOptions{n_threads}) {}
  explicit ThreadPool(const ThreadPoolOptions& options);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return n_threads_; }

  // fn(thread) once on every thread (the caller is thread 0); returns when all are done.
  // Must be called from one thread at a time and not from inside fn.
  template <typename F>
  void run(F&& fn) {
    run_tasks(n_threads_, [&fn](int, int thread) { fn(thread); });
  }

  // fn(task, thread) for task in [0, n_tasks), task i always on thread i % size().
  void run_tasks(int n_tasks, TaskFn fn);

 private:
  void worker_main(int thread);
  void run_own_tasks(int thread);
  void pin_caller();

  int n_threads_ = 1;
  ThreadPoolOptions options_;
  std::vector<int> cpus_;  // cpu to pin thread t to
  std::vector<std::thread> workers_;
  std::thread::id pinned_caller_{};

  // The job of the current generation (written by the owner before it publishes it), in
  // the cache line of the generation counter: a worker that sees a new generation has
  // the job with the same line transfer. Left pointing at the last job after a run (read
  // only after the next generation is published), so the owner does not write this line
  // while the workers spin on it.
  alignas(64) std::atomic<uint32_t> generation_{0};
  const TaskFn* job_ = nullptr;
  int n_tasks_ = 0;
  alignas(64) std::atomic<uint32_t> sleepers_{0};
  alignas(64) std::atomic<uint32_t> remaining_{0};
  alignas(64) std::atomic<uint32_t> owner_sleeping_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace wafer
