// UTF-8 decoding, checking and encoding, used project-wide (the tokenizers, the LSP
// layer's position conversions, the completion text): decoding never fails (invalid bytes
// are reported, not thrown), and one strict checker decides what is valid UTF-8.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace wafer {

// Marks a byte that does not start a valid UTF-8 sequence (see decode_utf8).
inline constexpr uint32_t kInvalidCodepoint = 0xFFFFFFFFu;

// Decodes one UTF-8 sequence at s[0..n). Returns the code point and sets `len` to the bytes
// it spans; for an invalid sequence returns kInvalidCodepoint with len = 1 (the bad byte).
// Like llama.cpp, only the lead byte and the continuation bytes are checked (overlong forms
// and surrogates decode), but code points above U+10FFFF are invalid.
uint32_t decode_utf8(const char* s, size_t n, size_t& len);

// Strict UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF) at s[0..n):
// Valid with `len` its byte length; Incomplete when the bytes are a proper prefix of a
// valid sequence (more may follow); Invalid otherwise (len = 1).
enum class Utf8Check { Valid, Incomplete, Invalid };
Utf8Check check_utf8(const char* s, size_t n, size_t& len);
bool is_valid_utf8(std::string_view s);

// Byte length a UTF-8 lead byte announces (1 for continuation and invalid bytes).
inline size_t utf8_sequence_length(unsigned char lead) {
  static constexpr unsigned char kLen[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
  return kLen[lead >> 4];
}

// Appends the UTF-8 encoding of `cp` (cp <= 0x10FFFF).
void append_utf8(std::string& out, uint32_t cp);

}  // namespace wafer
