#include "server/benchtool/degenerate_text.h"

#include <cctype>
#include <map>
#include <set>
#include <string>

namespace wafer {
namespace {

std::string trimmed(std::string_view line) {
  const size_t b = line.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return std::string(line.substr(b, line.find_last_not_of(" \t\r") - b + 1));
}

bool counts(const std::string& line) {
  int n = 0;
  for (char c : line) n += std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  return n >= 5;
}

bool has_letter(std::string_view s) {
  for (char c : s)
    if (std::isalpha(static_cast<unsigned char>(c))) return true;
  return false;
}

// Lists of numbers and escapes (`0xff, 0xff, `, `\x00\x00`) repeat as data: every name-like
// run of the span (read as a cycle) starts with a digit or follows a backslash.
bool is_data(std::string_view s) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  bool any_run = false;
  for (size_t k = 0; k < s.size(); ++k) {
    const char before = s[(k + s.size() - 1) % s.size()];
    if (!word(s[k]) || word(before)) continue;
    any_run = true;
    if (!std::isdigit(static_cast<unsigned char>(s[k])) && before != '\\') return false;
  }
  return any_run;
}

int bracket_balance(std::string_view s) {
  int open = 0;
  for (char c : s) open += (c == '(' || c == '[' || c == '{') - (c == ')' || c == ']' || c == '}');
  return open;
}

}  // namespace

bool repeats_prefix_line(std::string_view before_cursor, std::string_view suggestion) {
  const size_t head_start = before_cursor.rfind('\n') == std::string_view::npos ? 0 : before_cursor.rfind('\n') + 1;
  std::set<std::string> above;
  for (size_t start = 0; start < head_start;) {
    const size_t nl = before_cursor.find('\n', start);
    above.insert(trimmed(before_cursor.substr(start, nl - start)));
    start = nl + 1;
  }
  std::map<std::string, int> written;
  std::string head(before_cursor.substr(head_start));
  for (size_t start = 0; start <= suggestion.size();) {
    size_t nl = suggestion.find('\n', start);
    if (nl == std::string_view::npos) nl = suggestion.size();
    const std::string line = trimmed(head + std::string(suggestion.substr(start, nl - start)));
    head.clear();
    if (counts(line) && above.count(line) && ++written[line] >= 2) return true;
    start = nl + 1;
  }
  return false;
}

bool loops_span(std::string_view s) {
  for (size_t p = 2; p <= 96 && 3 * p <= s.size(); ++p)
    for (size_t i = 0; i + 3 * p <= s.size(); ++i) {
      const std::string_view span = s.substr(i, p);
      if (s.substr(i + p, p) != span || s.substr(i + 2 * p, p) != span) continue;
      if (has_letter(span) && (p >= 8 || bracket_balance(span) > 0) && !is_data(span)) return true;
    }
  return false;
}

}  // namespace wafer
