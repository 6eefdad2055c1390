#include "server/daemon/stats.h"

#include <algorithm>
#include <cmath>

namespace wafer {

void LatencySeries::add(double ms) {
  if (samples_.size() < kWindow) samples_.push_back(ms);
  else samples_[next_] = ms;
  next_ = (next_ + 1) % kWindow;
  ++count_;
  max_ = std::max(max_, ms);
  sum_ += ms;
}

double LatencySeries::percentile(double q) const { return nearest_rank(samples_, q); }

double nearest_rank(std::vector<double> s, double q) {
  if (s.empty()) return 0;
  auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(s.size())));
  rank = std::clamp<size_t>(rank, 1, s.size());
  std::nth_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(rank - 1), s.end());
  return s[rank - 1];
}

nlohmann::json LatencySeries::to_json() const {
  auto r = [](double v) { return std::round(v * 1000) / 1000; };  // microsecond resolution
  return {{"count", count_},
          {"p50", r(percentile(0.5))},
          {"p90", r(percentile(0.9))},
          {"p99", r(percentile(0.99))},
          {"max", r(max_)},
          {"mean", r(count_ ? sum_ / static_cast<double>(count_) : 0)}};
}

uint64_t Stats::counter(const std::string& name) const {
  auto it = counters_.find(name);
  return it == counters_.end() ? 0 : it->second;
}

const LatencySeries* Stats::stage(const std::string& name) const {
  auto it = stages_.find(name);
  return it == stages_.end() ? nullptr : &it->second;
}

nlohmann::json Stats::to_json() const {
  nlohmann::json counts = nlohmann::json::object(), stages = nlohmann::json::object();
  for (const auto& [k, v] : counters_) counts[k] = v;
  for (const auto& [k, v] : stages_) stages[k] = v.to_json();
  return {{"counts", counts}, {"latency_ms", stages}};
}

}  // namespace wafer
