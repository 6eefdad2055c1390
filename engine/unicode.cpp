#include "engine/unicode.h"

#include <algorithm>
#include <array>
#include <memory>

namespace wafer {
namespace {

UnicodeClass lookup_range(uint32_t cp) {
  using namespace unicode_detail;
  const uint32_t* begin = kCategoryRanges;
  const uint32_t* end = kCategoryRanges + kCategoryRangeCount;
  // First entry whose start is > cp, then step back one.
  const uint32_t* it = std::upper_bound(begin, end, cp, [](uint32_t c, uint32_t entry) {
    return c < (entry >> 8);
  });
  if (it == begin) return UnicodeClass::Undefined;
  return static_cast<UnicodeClass>(it[-1] & 0xff);
}

// The Basic Multilingual Plane is expanded into a flat table once (64 KiB): almost all text
// lives there and the pre-tokenizers ask for every code point.
const std::array<UnicodeClass, 0x10000>& bmp_table() {
  static const std::unique_ptr<std::array<UnicodeClass, 0x10000>> table = [] {
    auto t = std::make_unique<std::array<UnicodeClass, 0x10000>>();
    for (uint32_t cp = 0; cp < 0x10000; ++cp) (*t)[cp] = lookup_range(cp);
    return t;
  }();
  return *table;
}

struct ByteMap {
  std::array<std::string, 256> to_char;
  std::array<int16_t, 512> from_cp;  // stand-ins are all below U+0200
};

// GPT-2's mapping: printable Latin-1 bytes stand for themselves; the other 68 bytes map, in
// order, to U+0100, U+0101, ...
const ByteMap& byte_map() {
  static const ByteMap map = [] {
    ByteMap m;
    m.from_cp.fill(-1);
    auto printable = [](int b) { return (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae); };
    int next = 256;
    for (int b = 0; b < 256; ++b) {
      uint32_t cp = printable(b) ? uint32_t(b) : uint32_t(next++);
      m.to_char[b].clear();
      append_utf8(m.to_char[b], cp);
      m.from_cp[cp] = int16_t(b);
    }
    return m;
  }();
  return map;
}

}  // namespace

UnicodeClass unicode_class(uint32_t cp) {
  if (cp < 0x10000) return bmp_table()[cp];
  if (cp > 0x10ffff) return UnicodeClass::Undefined;
  return lookup_range(cp);
}

bool unicode_is_whitespace(uint32_t cp) {
  if (cp < 0x80) return (cp >= 9 && cp <= 13) || cp == 32;
  switch (cp) {
    case 0x85: case 0xa0: case 0x1680: case 0x2028: case 0x2029: case 0x202f: case 0x205f: case 0x3000:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200a;
  }
}

const char* unicode_table_source() { return unicode_detail::kUnicodeTableSource; }

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

std::string_view byte_to_bpe_char(uint8_t byte) { return byte_map().to_char[byte]; }

int bpe_char_to_byte(uint32_t cp) { return cp < 512 ? byte_map().from_cp[cp] : -1; }

}  // namespace wafer
