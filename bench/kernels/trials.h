// The kernels' prefetch trials (kernels/simd_backend.cpp) as their tuning text tells them:
// one part per weight type and kind, "q8_0 decode prefetch near (timed: ...)", or with
// "undecided" while a trial runs, the parts separated by "; ". A part appears once its
// trial has started. Benchmarks run until the trials they depend on have chosen, as they
// have in a daemon after its first suggestions.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace wafer::bench {

// Whether, for every prefix (e.g. "q8_0 decode", "q4_0 batch"), a part of `tuning` starts
// with it and has chosen.
inline bool trials_chosen(std::string_view tuning, const std::vector<std::string>& prefixes) {
  return std::all_of(prefixes.begin(), prefixes.end(), [tuning](const std::string& prefix) {
    for (size_t at = 0; at < tuning.size();) {
      const size_t end = std::min(tuning.find("; ", at), tuning.size());
      const std::string_view part = tuning.substr(at, end - at);
      if (part.substr(0, prefix.size()) == prefix) return part.find("undecided") == std::string_view::npos;
      at = end + 2;
    }
    return false;
  });
}

}  // namespace wafer::bench
