#include "server/prompt/unclosed_brackets.h"

#include <vector>

namespace wafer {
namespace {

struct Open {
  char closer;
  size_t at;  // offset in the suggestion
};

// How many of the still-open brackets (innermost last) the suffix closes, innermost first:
// the suffix's own brackets are matched among themselves first.
size_t closed_by_suffix(const std::vector<Open>& open, std::string_view suffix, std::string_view brackets) {
  std::string own;  // the suffix's own open brackets' closers
  size_t closed = 0;
  for (char c : suffix) {
    if (closed == open.size()) break;
    const size_t b = brackets.find(c);
    if (b == std::string_view::npos) continue;
    if (b % 2 == 0) {
      own += brackets[b + 1];
    } else if (!own.empty()) {
      if (own.back() != c) break;  // not code this reading understands: leave it to the suffix
      own.pop_back();
    } else if (open[open.size() - 1 - closed].closer == c) {
      ++closed;
    } else {
      break;
    }
  }
  return closed;
}

}  // namespace

std::string cut_unclosed_brackets(std::string_view text, const CursorFacts& f) {
  if (f.in_comment || f.in_string) return std::string(text);
  const std::string_view brackets = f.brackets;
  std::vector<Open> open;
  size_t good = 0;       // the end of the last line that ended with nothing open
  bool good_line = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      quote = 0;
      if (open.empty()) {
        good = i;
        good_line = true;
      }
      continue;
    }
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'' || c == '`') {
      quote = c;
      continue;
    }
    const size_t b = brackets.find(c);
    if (b == std::string_view::npos) continue;
    if (b % 2 == 0) open.push_back({brackets[b + 1], i});
    else if (!open.empty() && open.back().closer == c) open.pop_back();
    // A closer of something opened before the cursor: the stop rules and other filters judge it.
  }
  if (open.empty()) return std::string(text);
  const std::string suffix = f.line_rest + "\n" + f.after_lines;
  if (closed_by_suffix(open, suffix, brackets) == open.size()) return std::string(text);
  if (good_line) return std::string(text.substr(0, good));
  std::string_view kept = text.substr(0, open.front().at);
  const size_t e = kept.find_last_not_of(" \t");
  return std::string(kept.substr(0, e == std::string_view::npos ? 0 : e + 1));
}

}  // namespace wafer
