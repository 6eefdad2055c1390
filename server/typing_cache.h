// Typing-through: the last suggestion shown per document, so that a user who types what
// it says is answered from memory, without the debounce and without the engine.
//
// An entry remembers the document text before and after the cursor when the suggestion
// was made. A later request hits when the text after the cursor is unchanged and the text
// before it is the remembered one plus characters that match the head of the suggestion;
// the answer is the rest of the suggestion. Backspacing inside the typed part still hits
// (the comparison is always against the remembered anchor); typing something else, moving
// elsewhere or editing after the cursor misses.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace wafer {

class TypingCache {
 public:
  void remember(const std::string& uri, std::string_view before, std::string_view after, std::string suggestion);
  // The rest of the suggestion, or nullopt on a miss (also when all of it was typed).
  std::optional<std::string> lookup(const std::string& uri, std::string_view before, std::string_view after) const;
  void forget(const std::string& uri) { entries_.erase(uri); }
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::string before, after, suggestion;
  };
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace wafer
