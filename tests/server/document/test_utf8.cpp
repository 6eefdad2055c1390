// UTF-8 validation, repair and UTF-16 lengths.
#include <catch2/catch.hpp>

#include "server/document/utf8.h"

using namespace wafer;

TEST_CASE("utf8: sequence lengths and ill-formed bytes", "[utf8]") {
  CHECK(utf8_sequence_length("a", 0) == 1);
  CHECK(utf8_sequence_length("\xC3\xA9", 0) == 2);           // é
  CHECK(utf8_sequence_length("\xE4\xB8\xAD", 0) == 3);       // 中
  CHECK(utf8_sequence_length("\xF0\x9F\x98\x80", 0) == 4);   // 😀
  CHECK(utf8_sequence_length("\x80", 0) == 0);               // stray continuation
  CHECK(utf8_sequence_length("\xC0\xAF", 0) == 0);           // overlong
  CHECK(utf8_sequence_length("\xED\xA0\x80", 0) == 0);       // UTF-16 surrogate
  CHECK(utf8_sequence_length("\xF4\x90\x80\x80", 0) == 0);   // > U+10FFFF
  CHECK(utf8_sequence_length("\xE4\xB8", 0) == 0);           // truncated
  CHECK(is_valid_utf8("héllo 中文 😀"));
  CHECK_FALSE(is_valid_utf8("a\xFF" "b"));
}

TEST_CASE("utf8: repair replaces each bad byte with U+FFFD", "[utf8]") {
  CHECK(sanitize_utf8("ok") == "ok");
  CHECK(sanitize_utf8("a\xFF" "b") == "a\xEF\xBF\xBD" "b");
  CHECK(sanitize_utf8("\xE4\xB8") == "\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(is_valid_utf8(sanitize_utf8("\xC0\x80\xED\xA0\x80")));
}

TEST_CASE("utf8: UTF-16 lengths", "[utf8]") {
  CHECK(utf16_length("abc") == 3);
  CHECK(utf16_length("中文") == 2);
  CHECK(utf16_length("😀") == 2);
  CHECK(utf16_length("a\xFF") == 2);
}
