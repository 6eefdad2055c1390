// Streaming decode (never a broken UTF-8 sequence) and escaping of token pieces.
#include <cstdio>

#include "engine/tokenizer.h"
#include "engine/unicode.h"

namespace wafer {
namespace {

enum class Utf8 { Valid, Incomplete, Invalid };

// Strict UTF-8 (no overlong forms, no surrogates, <= U+10FFFF) at s[0..n): Valid with its
// length, Incomplete if the bytes so far are a proper prefix of a valid sequence, else
// Invalid (length 1).
Utf8 check_utf8(const unsigned char* s, size_t n, size_t& len) {
  len = 1;
  unsigned char c = s[0];
  if (c < 0x80) return Utf8::Valid;
  size_t need;
  unsigned char lo = 0x80, hi = 0xbf;  // allowed range of the second byte
  if (c >= 0xc2 && c <= 0xdf) need = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    need = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    need = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return Utf8::Invalid;
  }
  for (size_t i = 1; i < need; ++i) {
    if (i >= n) return Utf8::Incomplete;
    unsigned char b = s[i];
    if (i == 1 ? (b < lo || b > hi) : (b & 0xc0) != 0x80) return Utf8::Invalid;
  }
  len = need;
  return Utf8::Valid;
}

}  // namespace

std::string StreamDecoder::push(TokenId id) {
  pending_.append(tok_->token_bytes(id, render_special_));
  std::string out;
  const auto* s = reinterpret_cast<const unsigned char*>(pending_.data());
  size_t i = 0;
  while (i < pending_.size()) {
    size_t len;
    Utf8 r = check_utf8(s + i, pending_.size() - i, len);
    if (r == Utf8::Incomplete) break;  // wait for the next token
    if (r == Utf8::Valid) out.append(pending_, i, len);
    else out.append("\xef\xbf\xbd");
    i += len;
  }
  pending_.erase(0, i);
  return out;
}

std::string StreamDecoder::finish() {
  std::string out;
  if (!pending_.empty()) out = "\xef\xbf\xbd";
  pending_.clear();
  return out;
}

std::string escape_piece(std::string_view bytes) {
  std::string out;
  const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  for (size_t i = 0; i < bytes.size();) {
    unsigned char c = s[i];
    char buf[8];
    if (c == '\\') { out += "\\\\"; ++i; continue; }
    if (c == '\n') { out += "\\n"; ++i; continue; }
    if (c == '\t') { out += "\\t"; ++i; continue; }
    if (c == '\r') { out += "\\r"; ++i; continue; }
    if (c < 0x20 || c == 0x7f) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      ++i;
      continue;
    }
    size_t len;
    if (check_utf8(s + i, bytes.size() - i, len) == Utf8::Valid) {
      out.append(bytes.substr(i, len));
      i += len;
    } else {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      ++i;
    }
  }
  return out;
}

}  // namespace wafer
