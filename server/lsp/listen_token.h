// The token a client of a listening daemon (`wafer lsp --listen`) presents before anything
// else, so that other users of the machine cannot connect to it. The first bytes a client
// sends on the connection are one line, before any LSP framing:
//
//   wafer-token <token>\r\n      (a bare \n is accepted too)
//
// The token is the text of the token file (64 hex digits when the daemon made it). A
// connection whose first bytes are anything else, or whose token differs, is answered with
// one line `wafer-error: <reason>\r\n` and closed. TokenCheck is a pure state machine over
// the connection's first bytes (no I/O), so it is unit-tested at every split and fuzzed.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "engine/base/result.h"

namespace wafer {

inline constexpr std::string_view kTokenLinePrefix = "wafer-token ";
inline constexpr std::string_view kTokenErrorPrefix = "wafer-error: ";
// The longest token line accepted (prefix, token, line end); longer is refused unread.
inline constexpr size_t kMaxTokenLine = 300;

// A fresh token from the operating system's random source: 32 bytes as 64 hex digits.
Result<std::string> make_listen_token();
// The token in a token file's text: trimmed of surrounding white space; an error when it is
// empty, too long for the line, or holds white space or control characters.
Result<std::string> parse_token_text(std::string_view text);
// Equality whose time depends on the lengths only, not on where the strings differ.
bool constant_time_equal(std::string_view a, std::string_view b);

class TokenCheck {
 public:
  enum class State { kReading, kAccepted, kRefused };
  explicit TokenCheck(std::string expected) : expected_(std::move(expected)) {}

  // Consumes the connection's bytes while kReading. On kAccepted, rest() holds the bytes
  // after the token line (the start of the LSP stream); on kRefused, reason() says why.
  State feed(std::string_view bytes);
  State state() const { return state_; }
  const std::string& rest() const { return rest_; }
  const std::string& reason() const { return reason_; }
  // The line to write back to a refused client.
  std::string error_line() const { return std::string(kTokenErrorPrefix) + reason_ + "\r\n"; }

 private:
  State refuse(std::string reason);

  std::string expected_;
  State state_ = State::kReading;
  std::string line_, rest_, reason_;
};

}  // namespace wafer
