#include "server/typing_cache.h"

namespace wafer {

void TypingCache::remember(const std::string& uri, std::string_view before, std::string_view after,
                           std::string suggestion) {
  if (suggestion.empty()) {
    forget(uri);
    return;
  }
  entries_[uri] = Entry{std::string(before), std::string(after), std::move(suggestion), {}};
}

bool TypingCache::extend(const std::string& uri, std::string_view before, std::string_view after,
                         std::string_view suggestion, std::string continuation) {
  auto it = entries_.find(uri);
  if (it == entries_.end() || continuation.empty()) return false;
  Entry& e = it->second;
  if (e.suggestion != suggestion || e.after != after || e.before != before) return false;
  e.continuation = std::move(continuation);
  return true;
}

std::optional<std::string> TypingCache::lookup(const std::string& uri, std::string_view before,
                                               std::string_view after, bool* from_continuation) const {
  auto it = entries_.find(uri);
  if (it == entries_.end()) return std::nullopt;
  const Entry& e = it->second;
  if (after != e.after || before.size() < e.before.size()) return std::nullopt;
  std::string_view typed = before.substr(e.before.size());
  const std::string_view suggestion(e.suggestion);
  if (typed.size() < suggestion.size()) {
    if (!suggestion.starts_with(typed)) return std::nullopt;
  } else {
    // The suggestion is all typed: the rest comes from the continuation, if it matches.
    std::string_view past = typed.substr(suggestion.size());
    if (!typed.starts_with(suggestion) || past.size() >= e.continuation.size() ||
        !std::string_view(e.continuation).starts_with(past))
      return std::nullopt;
  }
  if (before.compare(0, e.before.size(), e.before) != 0) return std::nullopt;
  if (typed.size() < suggestion.size()) return e.suggestion.substr(typed.size());
  if (from_continuation) *from_continuation = true;
  return e.continuation.substr(typed.size() - suggestion.size());
}

}  // namespace wafer
