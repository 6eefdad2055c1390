#include "server/service/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "server/platform/platform.h"

namespace wafer {

size_t LatencySeries::bucket_of(double ms) {
  if (!(ms >= std::ldexp(1.0, kMinExp))) return 0;  // also NaN
  int exp = 0;
  double mantissa = std::frexp(ms, &exp);  // ms = mantissa * 2^exp, mantissa in [0.5, 1)
  int octave = exp - 1;                    // ms in [2^octave, 2^(octave + 1))
  if (octave >= kMaxExp) return kBuckets - 1;
  auto sub = static_cast<size_t>((2 * mantissa - 1) * kSubBuckets);
  return 1 + static_cast<size_t>(octave - kMinExp) * kSubBuckets + std::min<size_t>(sub, kSubBuckets - 1);
}

double LatencySeries::lower_bound_of(size_t bucket) {
  if (bucket == 0) return 0;
  const size_t i = bucket - 1;
  const int octave = static_cast<int>(i / kSubBuckets) + kMinExp;
  return std::ldexp(1.0 + static_cast<double>(i % kSubBuckets) / kSubBuckets, octave);
}

void LatencySeries::add(double ms) {
  if (buckets_.empty()) buckets_.assign(kBuckets, 0);
  uint32_t& n = buckets_[bucket_of(ms)];
  if (n < UINT32_MAX) ++n;
  min_ = count_ == 0 ? ms : std::min(min_, ms);
  max_ = count_ == 0 ? ms : std::max(max_, ms);
  ++count_;
  sum_ += ms;
}

double LatencySeries::percentile(double q) const {
  if (count_ == 0) return 0;
  uint64_t total = 0;
  for (uint32_t n : buckets_) total += n;
  auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(total)));
  rank = std::clamp<uint64_t>(rank, 1, total);
  if (rank == total) return max_;  // the largest sample is known exactly
  uint64_t seen = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    // The first bucket holds everything below 2^kMinExp ms (0, or a negative difference).
    if (seen >= rank) return b == 0 ? min_ : std::clamp(lower_bound_of(b), min_, max_);
  }
  return max_;
}

double nearest_rank(std::vector<double> s, double q) {
  if (s.empty()) return 0;
  auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(s.size())));
  rank = std::clamp<size_t>(rank, 1, s.size());
  std::nth_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(rank - 1), s.end());
  return s[rank - 1];
}

uint64_t Stats::counter(const std::string& name) const {
  auto it = counters_.find(name);
  return it == counters_.end() ? 0 : it->second;
}

const LatencySeries* Stats::stage(const std::string& name) const {
  auto it = stages_.find(name);
  return it == stages_.end() ? nullptr : &it->second;
}

size_t Stats::bytes() const {
  size_t n = 0;
  for (const auto& [name, series] : stages_) n += name.size() + sizeof series + (series.count() ? LatencySeries::kBytes : 0);
  for (const auto& [name, value] : counters_) n += name.size() + sizeof value;
  return n;
}

long resident_kib() { return os::resident_kib(); }

HeapUse heap_use() {
  HeapUse h;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  struct mallinfo2 m = mallinfo2();
  h.in_use_kib = static_cast<long>((m.uordblks + m.hblkhd) / 1024);
  h.free_kib = static_cast<long>(m.fordblks / 1024);
#endif
  return h;
}

void release_free_heap() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace wafer
