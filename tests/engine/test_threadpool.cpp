#include "engine/threadpool.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <vector>

using namespace wafer;

TEST_CASE("every task runs once, task i on thread i % threads") {
  for (int threads : {1, 2, 3}) {
    auto pool = ThreadPool::create({threads, false, 50});
    REQUIRE(pool.ok());
    REQUIRE((*pool)->threads() == threads);
    for (int n_tasks : {1, 2, 5, 64}) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(n_tasks));
      std::vector<int> owner(static_cast<size_t>(n_tasks), -1);
      (*pool)->run(n_tasks, [&](int task, int thread) {
        runs[static_cast<size_t>(task)].fetch_add(1);
        owner[static_cast<size_t>(task)] = thread;
      });
      for (int i = 0; i < n_tasks; ++i) {
        REQUIRE(runs[static_cast<size_t>(i)].load() == 1);
        REQUIRE(owner[static_cast<size_t>(i)] == i % threads);
      }
    }
  }
}

TEST_CASE("thousands of back-to-back runs lose no wake-up, spinning or sleeping") {
  for (int spin_us : {0, 1000}) {  // 0: every wait goes through the futex
    auto pool = ThreadPool::create({2, false, spin_us});
    REQUIRE(pool.ok());
    std::atomic<int64_t> total{0};
    const int rounds = spin_us == 0 ? 100 : 1000;  // kept small: the CI machine is shared
    for (int r = 0; r < rounds; ++r) (*pool)->run_on_all([&](int task, int) { total.fetch_add(task + 1); });
    REQUIRE(total.load() == int64_t{rounds} * (1 + 2));
  }
}

TEST_CASE("results written by workers are visible to the caller after run") {
  auto pool = ThreadPool::create({2, true, 100});
  REQUIRE(pool.ok());
  std::vector<int64_t> out(1000);
  for (int r = 1; r <= 50; ++r) {
    (*pool)->run(10, [&](int task, int) {
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
          auto [b, e] = ThreadPool::slice(n, t, threads, granule);
          REQUIRE(b == expect);
          REQUIRE(e >= b);
          if (e < n) REQUIRE(e % granule == 0);
          expect = e;
        }
        REQUIRE(expect == n);
      }
    }
  }
}

TEST_CASE("a bad thread count is an error, zero tasks a no-op") {
  REQUIRE_FALSE(ThreadPool::create({-1, false, 0}).ok());
  auto pool = ThreadPool::create({});
  REQUIRE(pool.ok());
  REQUIRE((*pool)->threads() >= 1);
  bool ran = false;
  (*pool)->run(0, [&](int, int) { ran = true; });
  REQUIRE_FALSE(ran);
}
