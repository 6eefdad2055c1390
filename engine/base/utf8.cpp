#include "engine/base/utf8.h"

namespace wafer {

uint32_t decode_utf8(const char* s, size_t n, size_t& len) {
  const auto* u = reinterpret_cast<const unsigned char*>(s);
  len = 1;
  unsigned char c = u[0];
  if (c < 0x80) return c;
  size_t need;
  uint32_t cp;
  if ((c & 0xe0) == 0xc0) { need = 2; cp = c & 0x1f; }
  else if ((c & 0xf0) == 0xe0) { need = 3; cp = c & 0x0f; }
  else if ((c & 0xf8) == 0xf0) { need = 4; cp = c & 0x07; }
  else return kInvalidCodepoint;  // continuation byte or 0xf8..0xff
  if (n < need) return kInvalidCodepoint;
  for (size_t i = 1; i < need; ++i) {
    if ((u[i] & 0xc0) != 0x80) return kInvalidCodepoint;
    cp = (cp << 6) | (u[i] & 0x3f);
  }
  if (cp > 0x10ffff) return kInvalidCodepoint;
  len = need;
  return cp;
}

Utf8Check check_utf8(const char* str, size_t n, size_t& len) {
  const auto* s = reinterpret_cast<const unsigned char*>(str);
  len = 1;
  unsigned char c = s[0];
  if (c < 0x80) return Utf8Check::Valid;
  size_t need;
  unsigned char lo = 0x80, hi = 0xbf;  // allowed range of the second byte
  if (c >= 0xc2 && c <= 0xdf) {
    need = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    need = 3;
    if (c == 0xe0) lo = 0xa0;  // overlong
    if (c == 0xed) hi = 0x9f;  // surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    need = 4;
    if (c == 0xf0) lo = 0x90;  // overlong
    if (c == 0xf4) hi = 0x8f;  // above U+10FFFF
  } else {
    return Utf8Check::Invalid;
  }
  for (size_t i = 1; i < need; ++i) {
    if (i >= n) return Utf8Check::Incomplete;
    unsigned char b = s[i];
    if (i == 1 ? (b < lo || b > hi) : (b & 0xc0) != 0x80) return Utf8Check::Invalid;
  }
  len = need;
  return Utf8Check::Valid;
}

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t len;
    if (check_utf8(s.data() + i, s.size() - i, len) != Utf8Check::Valid) return false;
    i += len;
  }
  return true;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(char(cp));
  } else if (cp < 0x800) {
    out.push_back(char(0xc0 | (cp >> 6)));
    out.push_back(char(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out.push_back(char(0xe0 | (cp >> 12)));
    out.push_back(char(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(char(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(char(0xf0 | (cp >> 18)));
    out.push_back(char(0x80 | ((cp >> 12) & 0x3f)));
    out.push_back(char(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(char(0x80 | (cp & 0x3f)));
  }
}

}  // namespace wafer
