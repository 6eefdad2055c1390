#include "engine/tokenizer/unicode.h"

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

std::string_view byte_to_bpe_char(uint8_t byte) { return byte_map().to_char[byte]; }

int bpe_char_to_byte(uint32_t cp) { return cp < 512 ? byte_map().from_cp[cp] : -1; }

}  // namespace wafer
