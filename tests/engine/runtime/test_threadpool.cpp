#include "engine/runtime/threadpool.h"
#include "engine/runtime/float_mode.h"
#include "tests/support/testing.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace wafer;

TEST_CASE("every task runs once, task i on thread i % size") {
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(ThreadPoolOptions{threads, false, 50});
    REQUIRE(pool.size() == threads);
    for (int n_tasks : {1, 2, 5, 64}) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(n_tasks));
      std::vector<int> owner(static_cast<size_t>(n_tasks), -1);
      pool.run_tasks(n_tasks, [&](int task, int thread) {
        runs[static_cast<size_t>(task)].fetch_add(1);
        owner[static_cast<size_t>(task)] = thread;
      });
      for (int i = 0; i < n_tasks; ++i) {
        REQUIRE(runs[static_cast<size_t>(i)].load() == 1);
        REQUIRE(owner[static_cast<size_t>(i)] == i % threads);
      }
    }
    std::vector<int> seen(static_cast<size_t>(threads), 0);
    pool.run([&](int thread) { seen[static_cast<size_t>(thread)]++; });
    for (int v : seen) REQUIRE(v == 1);
  }
}

TEST_CASE("back-to-back runs lose no wake-up, spinning or sleeping") {
  for (int spin_us : {0, 1000}) {  // 0: every wait goes through the futex
    ThreadPool pool(ThreadPoolOptions{2, false, spin_us});
    std::atomic<int64_t> total{0};
    const int rounds = spin_us == 0 ? 100 : 1000;  // kept small: the CI machine is shared
    for (int r = 0; r < rounds; ++r) pool.run([&](int thread) { total.fetch_add(thread + 1); });
    REQUIRE(total.load() == int64_t{rounds} * (1 + 2));
  }
}

TEST_CASE("results written by workers are visible to the caller after run") {
  ThreadPool pool(ThreadPoolOptions{2, true, 100});
  std::vector<int64_t> out(1000);
  for (int r = 1; r <= 50; ++r) {
    pool.run_tasks(10, [&](int task, int) {
      for (int i = task * 100; i < task * 100 + 100; ++i) out[static_cast<size_t>(i)] = int64_t{i} * r;
    });
    for (int i = 0; i < 1000; ++i) REQUIRE(out[static_cast<size_t>(i)] == int64_t{i} * r);
  }
}

TEST_CASE("slices cover the range exactly, in whole granules") {
  for (int64_t n : {0, 1, 15, 16, 17, 1000, 4864}) {
    for (int threads : {1, 2, 3, 7}) {
      for (int64_t granule : {1, 16}) {
        int64_t expect = 0;
        for (int t = 0; t < threads; ++t) {
          Slice s = thread_slice(n, t, threads, granule);
          REQUIRE(s.begin == expect);
          REQUIRE(s.end >= s.begin);
          if (s.end < n) REQUIRE(s.end % granule == 0);
          expect = s.end;
        }
        REQUIRE(expect == n);
      }
    }
  }
}

TEST_CASE("the default is one thread per physical core, zero tasks is a no-op") {
  ThreadPool pool;
  REQUIRE(pool.size() >= 1);
  bool ran = false;
  pool.run_tasks(0, [&](int, int) { ran = true; });
  REQUIRE_FALSE(ran);
}

TEST_CASE("every pool thread and the caller run with denormals flushed (FTZ|DAZ)") {
#if defined(__x86_64__) || defined(__aarch64__)
  for (int threads : {1, 3}) {
    ThreadPool pool(ThreadPoolOptions{threads, false, 50});
    std::vector<int> flushed(static_cast<size_t>(threads), -1);
    pool.run_tasks(threads, [&](int, int thread) {
      flushed[static_cast<size_t>(thread)] = denormals_flushed_in_this_thread() ? 1 : 0;
    });
    for (int t = 0; t < threads; ++t) CHECK(flushed[static_cast<size_t>(t)] == 1);
  }
  // Flushed arithmetic: a denormal input reads as zero, a product below FLT_MIN is zero.
  volatile float tiny = 1e-39f, small = 1e-30f;
  CHECK(tiny * 1.0f == 0.0f);
  CHECK(small * 1e-10f == 0.0f);
#else
  std::printf("SKIPPED: no flush-to-zero mode on this target\n");
  std::exit(test::kSkipExitCode);
#endif
}
