// Unicode classes (generated table), white space, UTF-8 decoding, GPT-2 byte mapping.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "engine/tokenizer/unicode.h"

using namespace wafer;

TEST_CASE("unicode: classes of representative code points", "[unicode]") {
  CHECK(unicode_class('a') == UnicodeClass::Letter);
  CHECK(unicode_class('7') == UnicodeClass::Number);
  CHECK(unicode_class('_') == UnicodeClass::Punctuation);
  CHECK(unicode_class('$') == UnicodeClass::Symbol);
  CHECK(unicode_class(' ') == UnicodeClass::Separator);
  CHECK(unicode_class('\n') == UnicodeClass::Control);
  CHECK(unicode_class(0xbd) == UnicodeClass::Number);       // ½
  CHECK(unicode_class(0x4e16) == UnicodeClass::Letter);     // 世
  CHECK(unicode_class(0x0301) == UnicodeClass::Mark);       // combining acute
  CHECK(unicode_class(0x1f999) == UnicodeClass::Symbol);    // 🦙
  CHECK(unicode_class(0x0378) == UnicodeClass::Undefined);  // unassigned
  CHECK(unicode_class(0x0cf3) == UnicodeClass::Mark);       // new in Unicode 15.0
  CHECK(unicode_class(0x2ebf0) == UnicodeClass::Letter);    // CJK Ext. I, new in 15.1
  CHECK(unicode_class(0x1c89) == UnicodeClass::Undefined);  // assigned only in 16.0
  CHECK(unicode_class(0xe000) == UnicodeClass::Control);    // private use
  CHECK(unicode_class(0x110000) == UnicodeClass::Undefined);
  CHECK(std::string(unicode_table_source()).find("15.1") != std::string::npos);
}

TEST_CASE("unicode: White_Space", "[unicode]") {
  for (uint32_t c : {9u, 10u, 11u, 12u, 13u, 32u, 0x85u, 0xa0u, 0x1680u, 0x2000u, 0x200au, 0x2028u, 0x3000u})
    CHECK(unicode_is_whitespace(c));
  for (uint32_t c : {0u, 8u, 14u, 0x1cu, 0x1fu, 0x61u, 0x200bu, 0xfeffu}) CHECK_FALSE(unicode_is_whitespace(c));
}

TEST_CASE("unicode: UTF-8 decoding reports invalid bytes", "[unicode]") {
  size_t len;
  CHECK(decode_utf8("\xe4\xb8\x96", 3, len) == 0x4e16);
  CHECK(len == 3);
  CHECK(decode_utf8("\xe4\xb8", 2, len) == kInvalidCodepoint);
  CHECK(len == 1);
  CHECK(decode_utf8("\x80", 1, len) == kInvalidCodepoint);
  CHECK(decode_utf8("\xf4\x90\x80\x80", 4, len) == kInvalidCodepoint);  // > U+10FFFF
  CHECK(decode_utf8("\xc3\x28", 2, len) == kInvalidCodepoint);
  std::string s;
  for (uint32_t cp : {0x41u, 0xe9u, 0x4e16u, 0x1f999u}) append_utf8(s, cp);
  CHECK(s == "Aé世🦙");
}

TEST_CASE("unicode: GPT-2 byte mapping is a bijection onto printable characters", "[unicode]") {
  std::set<std::string> seen;
  for (int b = 0; b < 256; ++b) {
    std::string_view c = byte_to_bpe_char(uint8_t(b));
    size_t len;
    uint32_t cp = decode_utf8(c.data(), c.size(), len);
    REQUIRE(cp != kInvalidCodepoint);
    CHECK(bpe_char_to_byte(cp) == b);
    CHECK_FALSE(unicode_is_whitespace(cp));
    seen.insert(std::string(c));
  }
  CHECK(seen.size() == 256);
  CHECK(byte_to_bpe_char(' ') == "Ġ");
  CHECK(byte_to_bpe_char('\n') == "Ċ");
  CHECK(bpe_char_to_byte('a') == 'a');
  CHECK(bpe_char_to_byte(0x4e16) == -1);
}

TEST_CASE("unicode: strict UTF-8 validation", "[unicode]") {
  CHECK(is_valid_utf8("plain ascii, é, 世, 🦙"));
  CHECK(is_valid_utf8(""));
  for (const char* bad : {"\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xff", "\x80", "\xc3"})
    CHECK_FALSE(is_valid_utf8(bad));
  size_t len;
  CHECK(check_utf8("\xf0\x9f\xa6", 3, len) == Utf8Check::Incomplete);
  CHECK(check_utf8("\xf0\x9f\xa6\x99", 4, len) == Utf8Check::Valid);
  CHECK(len == 4);
  CHECK(check_utf8("\xf0\x41", 2, len) == Utf8Check::Invalid);
  CHECK(len == 1);
}
