#include "server/index/gitignore.h"

namespace wafer {
namespace {

// A class at pattern[p] == '['; advances p past it. Returns whether c is in it (sets ok
// false for an unterminated class, which then matches a literal '[').
bool match_class(std::string_view pattern, size_t& p, char c, bool& ok) {
  size_t i = p + 1;
  bool negate = false;
  if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) {
    negate = true;
    ++i;
  }
  bool found = false, first = true;
  for (; i < pattern.size() && (first || pattern[i] != ']'); first = false) {
    char lo = pattern[i];
    if (lo == '\\' && i + 1 < pattern.size()) lo = pattern[++i];
    char hi = lo;
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      hi = pattern[i + 2];
      if (hi == '\\' && i + 3 < pattern.size()) hi = pattern[++i + 2];
      i += 2;
    }
    if (lo <= c && c <= hi) found = true;
    ++i;
  }
  if (i >= pattern.size()) {
    ok = false;
    return false;
  }
  ok = true;
  p = i + 1;
  return found != negate;
}

bool match_from(std::string_view pat, size_t p, std::string_view text, size_t t) {
  while (p < pat.size()) {
    const char c = pat[p];
    if (c == '*') {
      const bool dbl = p + 1 < pat.size() && pat[p + 1] == '*';
      if (dbl) {
        size_t q = p + 2;
        const bool at_start = p == 0 || pat[p - 1] == '/';
        if (at_start && (q == pat.size() || pat[q] == '/')) {
          // "**/" : zero or more folders; trailing "**": everything below.
          if (q == pat.size()) return true;
          ++q;  // past the slash
          for (size_t s = t;; ) {
            if (match_from(pat, q, text, s)) return true;
            const size_t slash = text.find('/', s);
            if (slash == std::string_view::npos) return false;
            s = slash + 1;
          }
        }
        // Otherwise "**" is a plain "*".
        p = q - 1;
      }
      ++p;
      for (size_t s = t;; ++s) {  // '*' matches within one folder name
        if (match_from(pat, p, text, s)) return true;
        if (s >= text.size() || text[s] == '/') return false;
      }
    }
    if (t >= text.size()) return false;
    if (c == '?') {
      if (text[t] == '/') return false;
      ++p, ++t;
      continue;
    }
    if (c == '[') {
      bool ok = true;
      size_t q = p;
      const bool in = match_class(pat, q, text[t], ok);
      if (ok) {
        if (!in || text[t] == '/') return false;
        p = q, ++t;
        continue;
      }
    }
    char lit = c;
    if (c == '\\' && p + 1 < pat.size()) lit = pat[++p];
    if (text[t] != lit) return false;
    ++p, ++t;
  }
  return t == text.size();
}

std::string_view trim_trailing_spaces(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t')) {
    if (s.size() >= 2 && s[s.size() - 2] == '\\') break;  // an escaped space stays
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) { return match_from(pattern, 0, text, 0); }

void IgnoreRules::add(std::string_view text, std::string_view base, int origin) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim_trailing_spaces(text.substr(start, end - start));
    start = end + 1;
    if (line.empty() || line[0] == '#') continue;
    Rule r;
    r.base = std::string(base);
    r.line = std::string(line);
    r.origin = origin;
    if (line[0] == '!') {
      r.negate = true;
      line.remove_prefix(1);
    } else if (line.size() >= 2 && line[0] == '\\' && (line[1] == '!' || line[1] == '#')) {
      line.remove_prefix(1);
    }
    if (!line.empty() && line.back() == '/') {
      r.dir_only = true;
      line.remove_suffix(1);
    }
    if (line.find('/') != std::string_view::npos) r.anchored = true;
    if (!line.empty() && line[0] == '/') line.remove_prefix(1);
    if (line.empty()) continue;
    r.pattern = std::string(line);
    rules_.push_back(std::move(r));
    if (end == text.size()) break;
  }
}

bool IgnoreRules::ignored(std::string_view path, bool is_dir) const {
  const Rule* r = deciding(path, is_dir);
  return r && !r->negate;
}

const IgnoreRules::Rule* IgnoreRules::deciding(std::string_view path, bool is_dir) const {
  const Rule* result = nullptr;
  for (const Rule& r : rules_) {
    if (r.dir_only && !is_dir) continue;
    std::string_view rel = path;
    if (!r.base.empty()) {  // the rule sees paths below its folder only
      if (!(rel.size() > r.base.size() && rel.starts_with(r.base) && rel[r.base.size()] == '/')) continue;
      rel.remove_prefix(r.base.size() + 1);
    }
    bool hit;
    if (r.anchored) {
      hit = glob_match(r.pattern, rel);
    } else {  // the last component
      const size_t slash = rel.rfind('/');
      hit = glob_match(r.pattern, slash == std::string_view::npos ? rel : rel.substr(slash + 1));
    }
    if (hit) result = &r;
  }
  return result;
}

}  // namespace wafer
