// Measures the machine's memory read bandwidth the way decode uses memory: every pool
// thread streams its own slice of a buffer far larger than the caches (summing it, so
// nothing is written back) and the total bytes over the wall time is the figure. Decode
// reads every weight once per token, so bytes-per-token / this bandwidth is the ceiling
// on tokens per second that `wafer info --residency` and bench/engine report against.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/base/result.h"
#include "engine/runtime/threadpool.h"

namespace wafer {

struct BandwidthOptions {
  size_t buffer_bytes = 0;  // 0: 4 x L3, at least 512 MiB, at most 1 GiB
  int passes = 7;           // timed passes after one warm-up; the median is reported
};

struct Bandwidth {
  double read_gbs = 0;  // median over passes, 1e9 bytes per second
  double best_gbs = 0;
  size_t buffer_bytes = 0;
  int threads = 0;
};

Result<Bandwidth> measure_read_bandwidth(ThreadPool& pool, const BandwidthOptions& options = {});

}  // namespace wafer
