#include "server/lsp/listen_token.h"

#include <algorithm>

#include <uv.h>

namespace wafer {

Result<std::string> make_listen_token() {
  unsigned char bytes[32];
  // Synchronous (no loop, no callback): getrandom / arc4random / RtlGenRandom underneath.
  if (int rc = uv_random(nullptr, nullptr, bytes, sizeof bytes, 0, nullptr); rc != 0)
    return make_error(std::string("no random bytes from the operating system: ") + uv_strerror(rc));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  return token;
}

Result<std::string> parse_token_text(std::string_view text) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  if (text.empty()) return make_error("the token file is empty");
  if (text.size() + kTokenLinePrefix.size() + 2 > kMaxTokenLine)
    return make_error("the token is longer than " + std::to_string(kMaxTokenLine - kTokenLinePrefix.size() - 2) +
                      " characters");
  for (char c : text)
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f)
      return make_error("the token holds white space or control characters");
  return std::string(text);
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  return diff == 0;
}

TokenCheck::State TokenCheck::refuse(std::string reason) {
  reason_ = std::move(reason);
  line_.clear();
  return state_ = State::kRefused;
}

TokenCheck::State TokenCheck::feed(std::string_view bytes) {
  if (state_ != State::kReading) return state_;
  const size_t eol = bytes.find('\n');
  const std::string_view head = bytes.substr(0, eol);
  // The line is kept up to its limit (line_ never holds more), so that the first check
  // below sees the same bytes however the connection's reads split them.
  const size_t room = kMaxTokenLine - line_.size();
  line_.append(head.substr(0, room));
  // Refuse as soon as the bytes cannot start a token line (an LSP header, say), without
  // waiting for a line end that may never come.
  const size_t common = std::min(line_.size(), kTokenLinePrefix.size());
  if (line_.compare(0, common, kTokenLinePrefix, 0, common) != 0)
    return refuse("expected 'wafer-token <token>' as the first line, before any LSP message");
  if (head.size() + (eol == std::string_view::npos ? 0 : 1) > room) return refuse("the token line is too long");
  if (eol == std::string_view::npos) return state_;
  std::string_view token = std::string_view(line_).substr(std::min(line_.size(), kTokenLinePrefix.size()));
  if (token.ends_with('\r')) token.remove_suffix(1);
  if (line_.size() < kTokenLinePrefix.size() || !constant_time_equal(token, expected_))
    return refuse("wrong token");
  line_.clear();
  rest_ = std::string(bytes.substr(eol + 1));
  return state_ = State::kAccepted;
}

}  // namespace wafer
