#include "server/prompt/token_estimate.h"

namespace wafer {
namespace {

enum class Kind { kLetter, kDigit, kSpace, kNewline, kPunct, kOther };

Kind kind_of(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return Kind::kLetter;
  if (c >= '0' && c <= '9') return Kind::kDigit;
  if (c == ' ' || c == '\t') return Kind::kSpace;
  if (c == '\n' || c == '\r') return Kind::kNewline;
  if (c >= 0x80) return Kind::kOther;
  return Kind::kPunct;
}

}  // namespace

size_t estimate_tokens(std::string_view text) {
  size_t tokens = 0;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    Kind k = kind_of(c);
    size_t j = i + 1;
    switch (k) {
      case Kind::kLetter:
        while (j < n && kind_of(static_cast<unsigned char>(text[j])) == Kind::kLetter) ++j;
        tokens += 1 + (j - i - 1) / 6;
        break;
      case Kind::kDigit:
        tokens += 1;
        break;
      case Kind::kSpace:
      case Kind::kNewline:
        while (j < n) {
          Kind kj = kind_of(static_cast<unsigned char>(text[j]));
          if (kj != Kind::kSpace && kj != Kind::kNewline) break;
          ++j;
        }
        // One space before a word or symbol rides along with it; a line break followed by
        // indentation is two pieces (the break, then the spaces).
        if (!(j - i == 1 && c == ' ' && j < n)) tokens += 1;
        if (j - i > 2 && text[j - 1] == ' ' && text[j - 2] == ' ' && text.substr(i, j - i).find('\n') != std::string_view::npos)
          tokens += 1;
        break;
      case Kind::kPunct: {
        while (j < n && kind_of(static_cast<unsigned char>(text[j])) == Kind::kPunct) ++j;
        size_t len = j - i;
        // The last symbol before a word joins the word ("(item", ".job", "_next").
        if (j < n && kind_of(static_cast<unsigned char>(text[j])) == Kind::kLetter) --len;
        if (len > 0) tokens += 1 + (len - 1) / 2;
        // Line breaks right after symbols join them (";\n").
        while (j < n && kind_of(static_cast<unsigned char>(text[j])) == Kind::kNewline) ++j;
        break;
      }
      case Kind::kOther:
        // One token per character: skip its continuation bytes.
        while (j < n && (static_cast<unsigned char>(text[j]) & 0xC0) == 0x80) ++j;
        tokens += 1;
        break;
    }
    i = j;
  }
  return tokens;
}

}  // namespace wafer
