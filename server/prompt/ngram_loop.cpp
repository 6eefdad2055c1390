#include "server/prompt/ngram_loop.h"

#include <algorithm>
#include <cctype>

namespace wafer {
namespace {

// Spans up to this long are looked for: longer loops are whole lines (repeated_lines.h).
constexpr size_t kMaxPeriod = 96;
// A span with no unclosed bracket needs this many bytes to count.
constexpr size_t kMinPlainPeriod = 8;
constexpr int kCopies = 3;
// A shorter span with no unclosed bracket counts from this many copies when it holds a word
// (`"w", "w", "w", "w", "w"`); a number or an escape (`0xff, `, `\x00`) is data.
constexpr int kWordCopies = 5;
// A shorter span of name characters (letters, digits, '_'; a letter among them) repeated
// inside one name counts once its copies run this long (`__cplusplusplusplusplusplus`,
// `_ID_ID_ID_ID_ID_ID_ID_ID`); separators or escapes make it data (`0xff, `, `\x00`).
constexpr size_t kMinShortRun = 3 * kMinPlainPeriod;

// A span that is itself copies of a shorter one (`0x00, 0x00, `) is judged as that one.
bool is_primitive(std::string_view unit) {
  for (size_t d = 1; d < unit.size(); ++d)
    if (unit.size() % d == 0 && unit.substr(d) == unit.substr(0, unit.size() - d)) return false;
  return true;
}

bool has_letter(std::string_view unit) {
  return std::any_of(unit.begin(), unit.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
}

bool is_loop_unit(std::string_view unit) {
  if (unit.size() < 2 || !is_primitive(unit)) return false;
  if (!has_letter(unit)) return false;
  int depth = 0;
  for (char c : unit) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
  }
  return depth > 0 || unit.size() >= kMinPlainPeriod;
}

// A word in the span: a letter or '_' that starts a run not preceded (the span read as a
// cycle) by a digit, a backslash or another word character.
bool holds_word(std::string_view unit) {
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t k = 0; k < unit.size(); ++k) {
    const char c = unit[k];
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_') continue;
    const char before = unit[(k + unit.size() - 1) % unit.size()];
    if (!word_char(before) && before != '\\') return true;
  }
  return false;
}

bool is_name_unit(std::string_view unit) {
  return is_primitive(unit) && has_letter(unit) && std::all_of(unit.begin(), unit.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
         });
}

bool is_short_word_unit(std::string_view unit) {
  return unit.size() >= 2 && unit.size() < kMinPlainPeriod && is_primitive(unit) && holds_word(unit);
}

size_t copies_at(std::string_view text, size_t i, size_t p) {
  size_t k = 1;
  while (i + (k + 1) * p <= text.size() && text.substr(i + k * p, p) == text.substr(i, p)) ++k;
  return k;
}

}  // namespace

NgramLoop find_ngram_loop(std::string_view text) {
  NgramLoop best;
  const size_t n = text.size();
  for (size_t p = 1; p <= kMaxPeriod && static_cast<size_t>(kCopies) * p <= n; ++p) {
    // run: how many positions in a row up to j have text[j] == text[j + p]; a run of
    // (kCopies - 1) * p from i means kCopies copies of text[i, i + p).
    size_t run = 0;
    const size_t need = static_cast<size_t>(kCopies - 1) * p;
    const size_t limit = best.found ? std::min(n - p, best.begin + need) : n - p;
    for (size_t j = 0; j < limit; ++j) {
      run = text[j] == text[j + p] ? run + 1 : 0;
      if (run < need) continue;
      const size_t i = j + 1 - need;
      if (best.found && i >= best.begin) break;
      const std::string_view unit = text.substr(i, p);
      const auto copies = [&] { return copies_at(text, i, p); };
      if (is_loop_unit(unit) || (is_short_word_unit(unit) && copies() >= static_cast<size_t>(kWordCopies)) ||
          (p < kMinPlainPeriod && is_name_unit(unit) && copies() * p >= kMinShortRun)) {
        best = {true, i, p};
        break;
      }
    }
  }
  return best;
}

std::string cut_ngram_loop(std::string_view text) {
  const NgramLoop loop = find_ngram_loop(text);
  if (!loop.found) return std::string(text);
  std::string_view kept = text.substr(0, loop.begin + loop.period);
  const size_t e = kept.find_last_not_of(" \t\r\n");
  return std::string(kept.substr(0, e == std::string_view::npos ? 0 : e + 1));
}

}  // namespace wafer
