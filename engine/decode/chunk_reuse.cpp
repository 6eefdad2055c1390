#include "engine/decode/chunk_reuse.h"

#include <algorithm>
#include <unordered_map>

namespace wafer {

std::vector<ReusedChunk> plan_chunk_reuse(std::span<const int32_t> cached, std::span<const int32_t> prompt,
                                          int common, int min_chunk) {
  std::vector<ReusedChunk> plan;
  if (min_chunk <= 0 || common < 0) return plan;
  const int n_cache = static_cast<int>(cached.size());
  const int last = static_cast<int>(prompt.size()) - 1;  // exclusive end of what chunks may cover
  if (common >= n_cache || common + min_chunk > last) return plan;

  // Where every token occurs in the cached tail, in increasing order.
  std::unordered_map<int32_t, std::vector<int>> where;
  for (int c = common; c < n_cache; ++c) where[cached[c]].push_back(c);

  int64_t budget = 4'000'000;  // token comparisons
  int c_floor = common;
  for (int p = common; p + min_chunk <= last && budget > 0;) {
    auto it = where.find(prompt[p]);
    int best_c = -1, best_n = 0;
    if (it != where.end()) {
      const std::vector<int>& at = it->second;
      for (auto c = std::lower_bound(at.begin(), at.end(), c_floor); c != at.end() && budget > 0; ++c) {
        int n = 0;
        const int limit = std::min(last - p, n_cache - *c);
        while (n < limit && cached[*c + n] == prompt[p + n]) ++n;
        budget -= n + 1;
        if (n > best_n) {
          best_n = n;
          best_c = *c;
          if (n == limit) break;  // cannot do better
        }
      }
    }
    if (best_n >= min_chunk) {
      plan.push_back({p, best_c, best_n});
      p += best_n;
      c_floor = best_c + best_n;
    } else {
      ++p;
    }
  }
  return plan;
}

}  // namespace wafer
