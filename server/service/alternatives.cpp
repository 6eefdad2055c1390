#include "server/service/alternatives.h"

#include <algorithm>
#include <string_view>

namespace wafer {
namespace {

std::string_view trim(std::string_view s) {
  const char* blank = " \t\r\n";
  size_t b = s.find_first_not_of(blank);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(blank) + 1 - b);
}

}  // namespace

CompletionRequest alternative_request(const CompletionRequest& greedy, int index, double temperature, double top_p) {
  CompletionRequest r = greedy;
  r.temperature = static_cast<float>(temperature);
  r.top_p = static_cast<float>(top_p);
  r.seed = static_cast<uint64_t>(index);
  r.cancel = nullptr;  // each run gets its own flag from the scheduler
  return r;
}

bool SuggestionSet::add(std::string text) {
  std::string key(trim(text));
  if (key.empty() || std::find(trimmed_.begin(), trimmed_.end(), key) != trimmed_.end()) return false;
  trimmed_.push_back(std::move(key));
  texts_.push_back(std::move(text));
  return true;
}

}  // namespace wafer
