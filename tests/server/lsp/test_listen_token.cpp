#include <catch2/catch.hpp>

#include <regex>

#include "server/lsp/listen_token.h"

using namespace wafer;
using State = TokenCheck::State;

namespace {

const std::string kToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

}  // namespace

TEST_CASE("listen token: the token line is accepted at every split, and the bytes after it are kept") {
  const std::string input = "wafer-token " + kToken + "\r\nContent-Length: 2\r\n\r\n{}";
  const size_t line_end = input.find('\n') + 1;
  for (size_t split = 0; split <= input.size(); ++split) {
    TokenCheck check(kToken);
    State first = check.feed(std::string_view(input).substr(0, split));
    CHECK(first == (split >= line_end ? State::kAccepted : State::kReading));
    State second = check.feed(std::string_view(input).substr(split));
    REQUIRE(second == State::kAccepted);
    // Bytes fed after the acceptance are the transport's, not the check's.
    CHECK(check.rest() == (split >= line_end ? input.substr(line_end, split - line_end) : input.substr(line_end)));
  }
}

TEST_CASE("listen token: a bare newline ends the line too") {
  TokenCheck check(kToken);
  CHECK(check.feed("wafer-token " + kToken + "\n") == State::kAccepted);
  CHECK(check.rest().empty());
}

TEST_CASE("listen token: anything but the right token line is refused") {
  auto refused = [](const std::string& bytes) {
    TokenCheck check(kToken);
    State s = check.feed(bytes);
    INFO(bytes);
    CHECK(s == State::kRefused);
    CHECK(check.error_line().starts_with("wafer-error: "));
    CHECK(check.error_line().ends_with("\r\n"));
    return check.reason();
  };
  std::string wrong = kToken;
  wrong.back() = '0';
  CHECK(refused("wafer-token " + wrong + "\r\n") == "wrong token");
  CHECK(refused("wafer-token " + kToken.substr(1) + "\r\n") == "wrong token");
  CHECK(refused("wafer-token " + kToken + "0\r\n") == "wrong token");
  CHECK(refused("wafer-token \r\n") == "wrong token");
  CHECK(!refused("wafer-token\r\n").empty());
  CHECK(refused("wafer-token  " + kToken + "\r\n") == "wrong token");
  CHECK(refused("\r\n") != "wrong token");
  CHECK(refused(std::string(kMaxTokenLine + 1, 'w')) != "wrong token");
  // An LSP message first is refused at its first byte, not after a line that may never end.
  CHECK(refused("Content-Length: 52\r\n\r\n").find("before any LSP message") != std::string::npos);
  CHECK(refused("C").find("before any LSP message") != std::string::npos);
  CHECK(refused("wafer-tokem").find("before any LSP message") != std::string::npos);
}

TEST_CASE("listen token: an overlong line is refused before its end arrives") {
  TokenCheck check(kToken);
  std::string line = "wafer-token " + std::string(kMaxTokenLine, 'a');
  CHECK(check.feed(line.substr(0, kMaxTokenLine - 1)) == State::kReading);
  CHECK(check.feed(line.substr(kMaxTokenLine - 1)) == State::kRefused);
  CHECK(check.reason() == "the token line is too long");
  // Once decided, more bytes change nothing.
  CHECK(check.feed("wafer-token " + kToken + "\r\n") == State::kRefused);
}

TEST_CASE("listen token: constant-time equality is equality") {
  CHECK(constant_time_equal("", ""));
  CHECK(constant_time_equal("abc", "abc"));
  CHECK(!constant_time_equal("abc", "abd"));
  CHECK(!constant_time_equal("abc", "ab"));
  CHECK(!constant_time_equal("ab", "abc"));
  CHECK(!constant_time_equal("", "a"));
}

TEST_CASE("listen token: fresh tokens are 64 random hex digits") {
  Result<std::string> a = make_listen_token(), b = make_listen_token();
  REQUIRE(a);
  REQUIRE(b);
  CHECK(std::regex_match(*a, std::regex("[0-9a-f]{64}")));
  CHECK(*a != *b);
}

TEST_CASE("listen token: a token file's text is trimmed and checked") {
  CHECK(*parse_token_text("  abc-123\r\n") == "abc-123");
  CHECK(!parse_token_text(""));
  CHECK(!parse_token_text(" \n"));
  CHECK(!parse_token_text("two words"));
  CHECK(!parse_token_text(std::string("nul\0byte", 8)));
  CHECK(!parse_token_text(std::string(kMaxTokenLine, 'a')));
  CHECK(parse_token_text(std::string(kMaxTokenLine - kTokenLinePrefix.size() - 2, 'a')));
}
