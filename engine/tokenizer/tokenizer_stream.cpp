// Streaming decode (never a broken UTF-8 sequence) and escaping of token pieces.
#include <cstdio>

#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/unicode.h"

namespace wafer {

std::string StreamDecoder::push(TokenId id) { return push_bytes(tok_->token_bytes(id, render_special_)); }

std::string StreamDecoder::push_bytes(std::string_view bytes) {
  pending_.append(bytes);
  std::string out;
  size_t i = 0;
  while (i < pending_.size()) {
    size_t len;
    Utf8Check r = check_utf8(pending_.data() + i, pending_.size() - i, len);
    if (r == Utf8Check::Incomplete) break;  // wait for the next token
    if (r == Utf8Check::Valid) out.append(pending_, i, len);
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
    if (check_utf8(bytes.data() + i, bytes.size() - i, len) == Utf8Check::Valid) {
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
