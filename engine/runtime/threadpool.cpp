#include "engine/runtime/threadpool.h"

#include <chrono>
#include <algorithm>

#include "engine/runtime/cpu_features.h"
#include "engine/runtime/float_mode.h"
#include "engine/runtime/platform.h"

namespace wafer {
namespace {

// Spins until pred() holds or spin_us passes; reads the clock only every 64 pauses (the
// vDSO clock is not a system call). Returns whether pred() became true.
template <typename Pred>
bool spin_until(Pred pred, int spin_us) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_us);
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (pred()) return true;
      platform::cpu_relax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return pred();
  }
}

}  // namespace

ThreadPool::ThreadPool(const ThreadPoolOptions& options) : options_(options) {
  const CpuFeatures& cpu = cpu_features();
  n_threads_ = options.threads > 0 ? options.threads : static_cast<int>(cpu.physical_cores);
  if (n_threads_ < 1) n_threads_ = 1;
  // More threads than cores wrap around the core list (useful only for testing).
  if (options.pin && !cpu.core_cpus.empty())
    for (int t = 0; t < n_threads_; ++t) cpus_.push_back(cpu.core_cpus[t % cpu.core_cpus.size()]);
  for (int t = 1; t < n_threads_; ++t) workers_.emplace_back([this, t] { worker_main(t); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_seq_cst);
  generation_.fetch_add(1, std::memory_order_seq_cst);
  platform::wake_all(&generation_);
  for (auto& w : workers_) w.join();
}

Slice thread_slice(int64_t n, int index, int count, int64_t align) {
  if (align < 1) align = 1;
  if (count < 1) count = 1;
  const int64_t units = (n + align - 1) / align;
  const int64_t lo = units * index / count, hi = units * (index + 1) / count;
  return {std::min(n, lo * align), std::min(n, hi * align)};
}

void ThreadPool::pin_caller() {
  if (cpus_.empty()) return;
  auto self = std::this_thread::get_id();
  if (self == pinned_caller_) return;
  platform::pin_current_thread(cpus_[0]);
  pinned_caller_ = self;
}

void ThreadPool::run_own_tasks(int thread) {
  const TaskFn& fn = *job_;
  for (int task = thread; task < n_tasks_; task += n_threads_) fn(task, thread);
}

void ThreadPool::run_tasks(int n_tasks, TaskFn fn) {
  if (n_tasks <= 0) return;
  pin_caller();
  flush_denormals_in_this_thread();  // one ldmxcsr: cheap beside any task worth a pool run
  if (n_threads_ == 1) {
    for (int task = 0; task < n_tasks; ++task) fn(task, 0);
    return;
  }
  job_ = &fn;
  n_tasks_ = n_tasks;
  remaining_.store(static_cast<uint32_t>(n_threads_ - 1), std::memory_order_relaxed);
  // Publish the job. seq_cst pairs with the workers' sleepers_ increment: either we see
  // a sleeper and wake it, or it sees the new generation before it sleeps.
  generation_.fetch_add(1, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) != 0) platform::wake_all(&generation_);

  run_own_tasks(0);

  auto done = [this] { return remaining_.load(std::memory_order_acquire) == 0; };
  if (!spin_until(done, options_.spin_us)) {
    for (;;) {
      owner_sleeping_.store(1, std::memory_order_seq_cst);
      uint32_t left = remaining_.load(std::memory_order_seq_cst);
      if (left == 0) break;
      platform::wait_on(&remaining_, left);
    }
    owner_sleeping_.store(0, std::memory_order_relaxed);
  }
}

void ThreadPool::worker_main(int thread) {
  if (!cpus_.empty()) platform::pin_current_thread(cpus_[thread]);
  flush_denormals_in_this_thread();
  // Generation 0 is the state before the first run (not a load: the owner may already
  // have published generation 1 by the time this thread starts).
  uint32_t seen = 0;
  for (;;) {
    auto changed = [&] { return generation_.load(std::memory_order_acquire) != seen; };
    if (!spin_until(changed, options_.spin_us)) {
      for (;;) {
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        uint32_t now = generation_.load(std::memory_order_seq_cst);
        if (now == seen) platform::wait_on(&generation_, seen);
        sleepers_.fetch_sub(1, std::memory_order_seq_cst);
        if (generation_.load(std::memory_order_acquire) != seen) break;
      }
    }
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_acquire)) return;

    run_own_tasks(thread);

    if (remaining_.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
        owner_sleeping_.load(std::memory_order_seq_cst) != 0)
      platform::wake_all(&remaining_);
  }
}

}  // namespace wafer
