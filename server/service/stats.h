// Counters and latency percentiles since the daemon started, per pipeline stage (debounce,
// queue, first token, engine, end to end), answered by the `wafer/stats` request. Only
// the loop thread touches it. Its memory does not grow with the number of requests: a
// fixed histogram per stage, a counter per name (both from fixed sets of names).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>


namespace wafer {

// Nearest-rank percentile of values (q in [0,1]): q = 0.5 of {1,2,3,4} is 2; 0 when empty.
double nearest_rank(std::vector<double> values, double q);

// Latency samples as a fixed histogram: log-linear buckets, kSubBuckets per power of two
// from 2^kMinExp ms (about 1 us; smaller values, 0 included, share the first bucket) to
// 2^kMaxExp ms (about 70 minutes; larger ones share the last). Its memory is fixed (one
// allocation at the first sample), whatever the number of samples, and its percentiles
// cover every sample since the start: a percentile is the lower bound of the bucket that
// holds the nearest-rank sample, within 1/kSubBuckets (1.6 %) below it, clamped to the
// smallest and largest sample (integers below 128 ms come out exact).
class LatencySeries {
 public:
  static constexpr int kSubBuckets = 64;
  static constexpr int kMinExp = -10, kMaxExp = 22;
  static constexpr size_t kBuckets = static_cast<size_t>(kMaxExp - kMinExp) * kSubBuckets + 1;
  static constexpr size_t kBytes = kBuckets * sizeof(uint32_t);  // the histogram's size

  void add(double ms);
  uint64_t count() const { return count_; }
  // Nearest-rank percentile (q in [0,1]) as described above; 0 when empty.
  double percentile(double q) const;
  double max() const { return max_; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0; }

  static size_t bucket_of(double ms);
  static double lower_bound_of(size_t bucket);

 private:
  std::vector<uint32_t> buckets_;  // kBuckets once the first sample came
  uint64_t count_ = 0;
  double min_ = 0, max_ = 0, sum_ = 0;
};

class Stats {
 public:
  void count(const std::string& name, uint64_t n = 1) { counters_[name] += n; }
  void record(const std::string& stage, double ms) { stages_[stage].add(ms); }
  uint64_t counter(const std::string& name) const;
  const LatencySeries* stage(const std::string& name) const;
  const std::map<std::string, uint64_t>& counters() const { return counters_; }
  const std::map<std::string, LatencySeries>& stage_series() const { return stages_; }
  size_t stages() const { return stages_.size(); }
  size_t bytes() const;  // the histograms' memory, about

 private:
  std::map<std::string, uint64_t> counters_;
  std::map<std::string, LatencySeries> stages_;
};

// The process's resident memory in KiB (/proc/self/statm); -1 where unknown.
long resident_kib();
// The C heap (glibc's malloc, all arenas): bytes in use and bytes held free; -1 where unknown.
struct HeapUse {
  long in_use_kib = -1, free_kib = -1;
};
HeapUse heap_use();
// Gives the C heap's free pages back to the kernel (glibc: malloc_trim, every arena). With
// the live heap flat, what still made resident memory creep while typing was free memory
// scattered through the heap by requests of varying sizes; the daemon calls this every
// kReleaseHeapEvery changes (a fraction of a millisecond each time).
void release_free_heap();
inline constexpr uint64_t kReleaseHeapEvery = 256;

}  // namespace wafer
