// Typing-through: the last suggestion shown per document, so that a user who types what
// it says is answered from memory, without the debounce and without the engine.
//
// An entry remembers the document text before and after the cursor when the suggestion
// was made. A later request hits when the text after the cursor is unchanged and the text
// before it is the remembered one plus characters that match the head of the suggestion;
// the answer is the rest of the suggestion. Backspacing inside the typed part still hits
// (the comparison is always against the remembered anchor); typing something else, moving
// elsewhere or editing after the cursor misses.
//
// Ahead of the cursor: an entry can also hold the continuation the engine decoded past the
// suggestion while the user was idle (what it would suggest once the suggestion is
// accepted). With the whole suggestion typed or accepted, the text typed past it is
// matched against the continuation the same way, and the rest of the continuation is
// the answer.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace wafer {

class TypingCache {
 public:
  void remember(const std::string& uri, std::string_view before, std::string_view after, std::string suggestion);
  // Adds the continuation decoded past `suggestion`, remembered for (before, after). False
  // (nothing changes) when the entry is no longer that one or the continuation is empty.
  bool extend(const std::string& uri, std::string_view before, std::string_view after, std::string_view suggestion,
              std::string continuation);
  // The rest of the suggestion, or of the continuation once the suggestion is all typed
  // (then *from_continuation is set, when given); nullopt on a miss (also when nothing is
  // left).
  std::optional<std::string> lookup(const std::string& uri, std::string_view before, std::string_view after,
                                    bool* from_continuation = nullptr) const;
  void forget(const std::string& uri) { entries_.erase(uri); }
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::string before, after, suggestion, continuation;
  };
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace wafer
