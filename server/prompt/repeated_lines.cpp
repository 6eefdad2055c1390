#include "server/prompt/repeated_lines.h"

#include <cctype>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace wafer {
namespace {

// The line with leading and trailing whitespace removed and inner runs of it as one space.
std::string normalized(std::string_view line) {
  std::string out;
  bool space = false;
  for (char c : line) {
    if (c == ' ' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// Lines short of this many letters and digits (`}`, `end`, `pass`, `i++;`) repeat in
// ordinary code.
constexpr size_t kMinWordChars = 5;

bool says_something(std::string_view line) {
  size_t n = 0;
  for (char c : line)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ++n;
  return n >= kMinWordChars;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t start = 0;;) {
    size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (nl == std::string_view::npos) return lines;
    start = nl + 1;
  }
}

}  // namespace

std::string cut_repeated_lines(std::string_view text, const CursorFacts& f) {
  std::unordered_set<std::string> above;
  for (std::string_view line : split_lines(f.before_lines)) above.insert(normalized(line));
  struct Seen {
    int count = 0;
    size_t second = 0;  // where the second copy in the suggestion starts
  };
  std::unordered_map<std::string, Seen> seen;
  size_t start = 0;
  const std::vector<std::string_view> lines = split_lines(text);
  for (size_t k = 0; k < lines.size(); ++k) {
    // The last line may still be growing: only whole lines are compared, unless it ends the text.
    const std::string line = normalized(k == 0 ? f.line_head + std::string(lines[k]) : std::string(lines[k]));
    if (says_something(line)) {
      Seen& s = seen[line];
      if (++s.count == 2) s.second = start;
      const bool looped = s.count >= 3 || (s.count >= 2 && above.count(line) > 0);
      // The line before the second copy ends where the kept text ends.
      if (looped) return std::string(text.substr(0, s.second == 0 ? 0 : s.second - 1));
    }
    start += lines[k].size() + 1;
  }
  return std::string(text);
}

}  // namespace wafer
