// Counters and latency percentiles since the daemon started, per pipeline stage (debounce,
// queue, first token, engine, end to end), answered by the `wafer/stats` request. Only
// the loop thread touches it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wafer {

// Nearest-rank percentile of values (q in [0,1]): q = 0.5 of {1,2,3,4} is 2; 0 when empty.
double nearest_rank(std::vector<double> values, double q);

// Keeps the most recent kWindow samples for percentiles plus an all-time count and max.
class LatencySeries {
 public:
  static constexpr size_t kWindow = 4096;
  void add(double ms);
  uint64_t count() const { return count_; }
  // Nearest-rank percentile over the window (q in [0,1]); 0 when empty.
  double percentile(double q) const;
  nlohmann::json to_json() const;  // {count, p50, p90, p99, max, mean}

 private:
  std::vector<double> samples_;
  size_t next_ = 0;
  uint64_t count_ = 0;
  double max_ = 0, sum_ = 0;
};

class Stats {
 public:
  void count(const std::string& name, uint64_t n = 1) { counters_[name] += n; }
  void record(const std::string& stage, double ms) { stages_[stage].add(ms); }
  uint64_t counter(const std::string& name) const;
  const LatencySeries* stage(const std::string& name) const;
  nlohmann::json to_json() const;  // {"counts": {...}, "latency_ms": {stage: {...}}}

 private:
  std::map<std::string, uint64_t> counters_;
  std::map<std::string, LatencySeries> stages_;
};

}  // namespace wafer
