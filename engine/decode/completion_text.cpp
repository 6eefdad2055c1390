#include "engine/decode/completion_text.h"

#include <algorithm>

namespace wafer {

CompletionText::CompletionText(std::vector<std::string> stop_strings) {
  for (std::string& s : stop_strings)
    if (!s.empty()) stops_.push_back(std::move(s));
}

size_t CompletionText::safe_end() const {
  // The longest suffix of text_ that is a proper prefix of some stop string stays held.
  size_t hold = 0;
  for (const std::string& s : stops_) {
    const size_t max_len = std::min(s.size() - 1, text_.size());
    for (size_t len = max_len; len > hold; --len) {
      if (text_.compare(text_.size() - len, len, s, 0, len) == 0) {
        hold = len;
        break;
      }
    }
  }
  return text_.size() - hold;
}

std::string CompletionText::push(std::string_view bytes) {
  if (stopped_ || bytes.empty()) return {};
  // A stop string can only end inside the new bytes: search from where it could begin.
  size_t longest = 0;
  for (const std::string& s : stops_) longest = std::max(longest, s.size());
  const size_t from = text_.size() > longest ? text_.size() - longest : 0;
  text_.append(bytes);
  size_t cut = std::string::npos;
  for (const std::string& s : stops_) cut = std::min(cut, text_.find(s, from));
  if (cut != std::string::npos) {
    text_.resize(std::max(cut, released_));
    stopped_ = true;
  }
  const size_t end = stopped_ ? text_.size() : safe_end();
  if (end <= released_) return {};
  std::string out = text_.substr(released_, end - released_);
  released_ = end;
  return out;
}

std::string CompletionText::finish() {
  if (released_ >= text_.size()) return {};
  std::string out = text_.substr(released_);
  released_ = text_.size();
  return out;
}

}  // namespace wafer
