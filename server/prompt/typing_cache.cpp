#include "server/prompt/typing_cache.h"

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
  if (after != e.after || !before.starts_with(e.before)) return std::nullopt;
  const std::string_view typed = before.substr(e.before.size()), suggestion(e.suggestion);
  if (typed.size() < suggestion.size()) {
    if (!suggestion.starts_with(typed)) return std::nullopt;
    return std::string(suggestion.substr(typed.size()));
  }
  // The suggestion is all typed: the rest comes from the continuation, if it matches.
  const std::string_view past = typed.substr(suggestion.size()), continuation(e.continuation);
  if (!typed.starts_with(suggestion) || past.size() >= continuation.size() || !continuation.starts_with(past))
    return std::nullopt;
  if (from_continuation) *from_continuation = true;
  return std::string(continuation.substr(past.size()));
}

}  // namespace wafer
