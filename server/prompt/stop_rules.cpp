#include "server/prompt/stop_rules.h"

namespace wafer {
namespace {

bool blank(std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; }

bool is_closer(std::string_view brackets, char c) {
  for (size_t i = 1; i < brackets.size(); i += 2)
    if (brackets[i] == c) return true;
  return false;
}

bool is_opener(std::string_view brackets, char c) {
  for (size_t i = 0; i < brackets.size(); i += 2)
    if (brackets[i] == c) return true;
  return false;
}

}  // namespace

size_t indent_width(std::string_view line) {
  size_t w = 0;
  for (char c : line) {
    if (c == ' ') w += 1;
    else if (c == '\t') w += 4;
    else break;
  }
  return w;
}

char next_suffix_char(const CursorFacts& f) {
  for (std::string_view s : {std::string_view(f.line_rest), std::string_view(f.after_lines)}) {
    size_t i = s.find_first_not_of(" \t\r\n");
    if (i != std::string_view::npos) return s[i];
  }
  return 0;
}

Mode decide_mode(const CursorFacts& f) {
  if (f.in_comment || f.in_string) return Mode::kSingleLine;
  if (!blank(f.line_rest)) return Mode::kSingleLine;
  return Mode::kMultiLine;
}

StopPoint find_stop(std::string_view text, const CursorFacts& f, Mode mode) {
  StopPoint stop;
  if (mode == Mode::kSingleLine) {
    size_t nl = text.find('\n');
    if (nl != std::string_view::npos) return {true, nl, "single_line"};
    return stop;
  }
  // The cursor's block: its line's indentation (or the cursor column on a blank line).
  const size_t base = blank(f.line_head) ? indent_width(f.line_head) : indent_width(f.indent);
  const char next = next_suffix_char(f);
  int depth = 0;          // brackets opened minus closed within the suggestion
  char quote = 0;         // inside a quoted string on the current line
  bool seen_content = false;
  size_t line_start = 0;  // start of the current line within text
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      quote = 0;
      std::string_view line = text.substr(line_start, i - line_start);
      if (line_start > 0 && blank(line) && seen_content && depth <= 0)
        return {true, line_start - 1, "blank_line"};
      if (!blank(line)) seen_content = true;
      line_start = i + 1;
      continue;
    }
    // The first visible character of a line after the first decides about that line.
    if (line_start > 0 && i > 0 && c != ' ' && c != '\t' && blank(text.substr(line_start, i - line_start))) {
      const size_t ind = indent_width(text.substr(line_start));
      if (ind < base) return {true, line_start - 1, "indent_drop"};
      if (ind == base && f.after_opener) {
        if (f.indent_blocks) return {true, line_start - 1, "block_closed"};
        if (is_closer(f.brackets, c)) {
          if (next == c) return {true, line_start - 1, "suffix_closes"};
          size_t nl = text.find('\n', i);
          if (nl != std::string_view::npos) return {true, nl, "block_closed"};
        }
      }
    }
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'' || c == '`') {
      quote = c;
    } else if (is_opener(f.brackets, c)) {
      ++depth;
    } else if (is_closer(f.brackets, c)) {
      if (--depth < 0 && next == c) {
        size_t keep = i;
        while (keep > 0 && (text[keep - 1] == ' ' || text[keep - 1] == '\t')) --keep;
        return {true, keep, "unmatched_bracket"};
      }
      if (depth < 0) depth = 0;
    }
  }
  return stop;
}

}  // namespace wafer
