#include "server/prompt/filters.h"

#include <algorithm>

#include "server/prompt/ngram_loop.h"
#include "server/prompt/repeated_lines.h"
#include "server/prompt/unclosed_brackets.h"

namespace wafer {
namespace {

std::string_view trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool is_closing_punct(char c) {
  return c == ')' || c == ']' || c == '}' || c == ';' || c == ':' || c == ',' || c == '"' || c == '\'' || c == '`' ||
         c == '>';
}

// The first non-blank line of text, or empty.
std::string_view first_nonblank_line(std::string_view text) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!trim(line).empty()) return line;
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return {};
}

}  // namespace

std::string trim_trailing_whitespace(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    size_t e = line.find_last_not_of(" \t\r");
    // The first line keeps its leading part even when blank: it continues the cursor's line.
    out.append(line.substr(0, e == std::string_view::npos ? 0 : e + 1));
    if (nl == std::string_view::npos) break;
    out += '\n';
    start = nl + 1;
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

bool is_whitespace_only(std::string_view text) { return trim(text).empty(); }

std::string cut_repeated_following_lines(std::string_view text, const CursorFacts& f) {
  const std::string_view next = trim(first_nonblank_line(f.after_lines));
  if (next.empty()) return std::string(text);
  size_t start = 0;
  for (size_t k = 0; start <= text.size(); ++k) {
    size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    // Only whole lines: the last line may still be growing, except when the text ends.
    std::string whole = k == 0 ? f.line_head + std::string(line) : std::string(line);
    if (!trim(line).empty() && trim(whole) == next) {
      size_t keep = start == 0 ? 0 : start - 1;
      return std::string(text.substr(0, keep));
    }
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return std::string(text);
}

std::string strip_duplicated_line_rest(std::string_view text, const CursorFacts& f) {
  std::string_view rest = trim(f.line_rest);
  if (rest.empty() || text.find('\n') != std::string_view::npos) return std::string(text);
  std::string_view t = text.substr(0, text.find_last_not_of(" \t") + 1);
  if (t.size() > rest.size() && t.ends_with(rest)) {
    t.remove_suffix(rest.size());
    return std::string(t.substr(0, t.find_last_not_of(" \t") + 1));
  }
  if (t.size() == rest.size() && t == rest) return {};
  // The longest run of closing punctuation that the rest begins with and the text ends with.
  size_t k = 0;
  while (k < rest.size() && is_closing_punct(rest[k])) ++k;
  for (; k > 0; --k)
    if (t.size() >= k && t.ends_with(rest.substr(0, k))) return std::string(t.substr(0, t.size() - k));
  return std::string(text);
}

std::string drop_closers_in_suffix(std::string_view text, const CursorFacts& f) {
  // Closers in the suggestion that close brackets opened before the cursor, in order.
  std::string opened, unmatched;
  std::vector<size_t> positions;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    size_t b = f.brackets.find(c);
    if (b == std::string_view::npos) continue;
    if (b % 2 == 0) {
      opened += c;
    } else if (!opened.empty() && opened.back() == f.brackets[b - 1]) {
      opened.pop_back();
    } else {
      unmatched += c;
      positions.push_back(i);
    }
  }
  if (unmatched.empty()) return std::string(text);
  // Only a tail made of those closers (and whitespace) can go.
  size_t first = positions.front();
  for (size_t i = first; i < text.size(); ++i)
    if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && f.brackets.find(text[i]) == std::string_view::npos)
      return std::string(text);
  std::string suffix_head;
  for (std::string_view s : {std::string_view(f.line_rest), std::string_view(f.after_lines)})
    for (char c : s)
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && suffix_head.size() < unmatched.size()) suffix_head += c;
  if (suffix_head != unmatched) return std::string(text);
  std::string_view kept = text.substr(0, first);
  return std::string(kept.substr(0, kept.find_last_not_of(" \t\n") + 1));
}

std::string normalize_indentation(std::string_view text, const CursorFacts& f) {
  const bool tabs = f.indent_unit == "\t";
  const size_t unit = tabs ? 4 : std::max<size_t>(f.indent_unit.size(), 1);
  std::string out;
  size_t start = 0;
  for (size_t k = 0; start <= text.size(); ++k) {
    size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    size_t ws = std::min(line.find_first_not_of(" \t"), line.size());
    std::string_view lead = line.substr(0, ws);
    bool foreign = tabs ? lead.find(' ') != std::string_view::npos && lead.size() >= 4
                        : lead.find('\t') != std::string_view::npos;
    if (k > 0 && foreign) {
      size_t width = indent_width(lead);
      if (tabs) out.append(width / 4, '\t').append(width % 4, ' ');
      else for (size_t i = 0; i < width / 4; ++i) out.append(unit, ' ');
      out.append(line.substr(ws));
    } else {
      out.append(line);
    }
    if (nl == std::string_view::npos) break;
    out += '\n';
    start = nl + 1;
  }
  return out;
}

Postprocessed postprocess(std::string_view raw, const CursorFacts& f, Mode mode) {
  Postprocessed p;
  p.text = std::string(raw);
  StopPoint stop = find_stop(p.text, f, mode);
  if (stop.stopped) {
    p.text.resize(stop.keep);
    p.fired.push_back(std::string("stop_") + stop.rule);
  }
  auto apply = [&](const char* name, std::string next) {
    if (next != p.text) {
      p.fired.push_back(name);
      p.text = std::move(next);
    }
  };
  apply("ngram_loop", cut_ngram_loop(p.text));
  apply("repeated_lines", cut_repeated_lines(p.text, f));
  if (mode == Mode::kSingleLine) apply("duplicated_line_rest", strip_duplicated_line_rest(p.text, f));
  apply("closers_in_suffix", drop_closers_in_suffix(p.text, f));
  apply("repeats_following_lines", cut_repeated_following_lines(p.text, f));
  apply("unclosed_brackets", cut_unclosed_brackets(p.text, f));
  apply("indentation", normalize_indentation(p.text, f));
  apply("trailing_whitespace", trim_trailing_whitespace(p.text));
  if (!p.text.empty() && is_whitespace_only(p.text)) apply("whitespace_only", std::string());
  return p;
}

}  // namespace wafer
