#include "engine/runtime/memory_lock.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "engine/runtime/platform.h"

namespace wafer {
namespace {

std::string mib(uint64_t bytes) { return std::to_string((bytes + (uint64_t{1} << 19)) >> 20) + " MiB"; }

}  // namespace

Result<uint64_t> lock_in_ram(std::span<const ByteRange> ranges) {
  const uintptr_t page = static_cast<uintptr_t>(platform::page_size());
  // Page-aligned spans, sorted and merged, so shared pages are locked (and counted) once.
  std::vector<std::pair<uintptr_t, uintptr_t>> spans;
  for (const ByteRange& r : ranges) {
    if (!r.data || r.bytes == 0) continue;
    const auto begin = reinterpret_cast<uintptr_t>(r.data);
    spans.emplace_back(begin / page * page, (begin + r.bytes + page - 1) / page * page);
  }
  std::sort(spans.begin(), spans.end());
  std::vector<std::pair<uintptr_t, uintptr_t>> merged;
  for (const auto& s : spans) {
    if (!merged.empty() && s.first <= merged.back().second) merged.back().second = std::max(merged.back().second, s.second);
    else merged.push_back(s);
  }
  uint64_t locked = 0;
  for (size_t i = 0; i < merged.size(); ++i) {
    const size_t n = merged[i].second - merged[i].first;
    std::string why;
    if (!platform::lock_pages(reinterpret_cast<const void*>(merged[i].first), n, why)) {
      for (size_t j = 0; j < i; ++j)
        platform::unlock_pages(reinterpret_cast<const void*>(merged[j].first), merged[j].second - merged[j].first);
      return make_error("mlock of " + mib(locked + n) + " failed: " + why);
    }
    locked += n;
  }
  return locked;
}

}  // namespace wafer
