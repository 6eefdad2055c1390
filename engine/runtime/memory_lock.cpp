#include "engine/runtime/memory_lock.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace wafer {
namespace {

std::string mib(uint64_t bytes) { return std::to_string((bytes + (uint64_t{1} << 19)) >> 20) + " MiB"; }

std::string limit_text() {
  rlimit r{};
  if (getrlimit(RLIMIT_MEMLOCK, &r) != 0) return "";
  if (r.rlim_cur == RLIM_INFINITY) return " (RLIMIT_MEMLOCK is unlimited)";
  return " (RLIMIT_MEMLOCK is " + mib(r.rlim_cur) +
         "; raise it with `ulimit -l`, LimitMEMLOCK= in a systemd unit, or /etc/security/limits.conf)";
}

}  // namespace

Result<uint64_t> lock_in_ram(std::span<const ByteRange> ranges) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
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
    if (mlock(reinterpret_cast<const void*>(merged[i].first), n) != 0) {
      const int err = errno;
      for (size_t j = 0; j < i; ++j)
        munlock(reinterpret_cast<const void*>(merged[j].first), merged[j].second - merged[j].first);
      return make_error("mlock of " + mib(locked + n) + " failed: " + std::strerror(err) + limit_text());
    }
    locked += n;
  }
  return locked;
}

}  // namespace wafer
