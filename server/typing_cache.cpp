#include "server/typing_cache.h"

namespace wafer {

void TypingCache::remember(const std::string& uri, std::string_view before, std::string_view after,
                           std::string suggestion) {
  if (suggestion.empty()) {
    forget(uri);
    return;
  }
  entries_[uri] = Entry{std::string(before), std::string(after), std::move(suggestion)};
}

std::optional<std::string> TypingCache::lookup(const std::string& uri, std::string_view before,
                                               std::string_view after) const {
  auto it = entries_.find(uri);
  if (it == entries_.end()) return std::nullopt;
  const Entry& e = it->second;
  if (after != e.after || before.size() < e.before.size()) return std::nullopt;
  std::string_view typed = before.substr(e.before.size());
  if (typed.size() >= e.suggestion.size() || !std::string_view(e.suggestion).starts_with(typed)) return std::nullopt;
  if (before.compare(0, e.before.size(), e.before) != 0) return std::nullopt;
  return e.suggestion.substr(typed.size());
}

}  // namespace wafer
