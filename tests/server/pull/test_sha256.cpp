// SHA-256 against the FIPS 180-4 / NIST example digests, in one piece and streamed in
// uneven chunks (so the block buffering is exercised), and over a file.
#include <catch2/catch.hpp>

#include <string>

#include "server/pull/sha256.h"
#include "tests/support/testing.h"

using namespace wafer;

namespace {
std::string digest(const std::string& s) {
  Sha256 h;
  h.update(s);
  return h.hex_digest();
}
}  // namespace

TEST_CASE("sha256 of the standard test messages", "[sha256]") {
  CHECK(digest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(digest(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256 streamed in odd-sized pieces equals the one-shot digest", "[sha256]") {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += char('a' + (i * 7) % 26);
  for (size_t piece : {1u, 3u, 63u, 64u, 65u, 1000u}) {
    Sha256 h;
    for (size_t at = 0; at < text.size(); at += piece) h.update(std::string_view(text).substr(at, piece));
    CHECK(h.hex_digest() == digest(text));
  }
}

TEST_CASE("sha256 of a file, and a missing file is an error", "[sha256]") {
  test::TempDir dir;
  test::write_file(dir / "f", "abc");
  auto d = sha256_file(dir / "f");
  REQUIRE(d.ok());
  CHECK(*d == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  auto missing = sha256_file(dir / "none");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("none") != std::string::npos);
}
