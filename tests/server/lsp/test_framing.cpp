// Content-Length framing: whole, split at every byte, several per read, and bad headers
// with the documented resync rules.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "server/lsp/framing.h"

using wafer::encode_frame;
using wafer::FrameDecoder;
using wafer::FrameEvent;

namespace {

std::vector<FrameEvent> feed_all(FrameDecoder& d, const std::string& bytes) {
  std::vector<FrameEvent> out;
  d.feed(bytes, out);
  return out;
}

std::vector<std::string> messages(const std::vector<FrameEvent>& ev) {
  std::vector<std::string> m;
  for (const auto& e : ev)
    if (e.kind == FrameEvent::Kind::kMessage) m.push_back(e.body);
  return m;
}

size_t errors(const std::vector<FrameEvent>& ev) {
  size_t n = 0;
  for (const auto& e : ev) n += e.kind == FrameEvent::Kind::kError;
  return n;
}

}  // namespace

TEST_CASE("framing: encode then decode one message", "[framing]") {
  FrameDecoder d;
  std::string frame = encode_frame(R"({"jsonrpc":"2.0"})");
  CHECK(frame == "Content-Length: 17\r\n\r\n{\"jsonrpc\":\"2.0\"}");
  auto ev = feed_all(d, frame);
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].body == R"({"jsonrpc":"2.0"})");
  CHECK_FALSE(d.mid_message());
}

TEST_CASE("framing: split at every byte gives the same messages", "[framing]") {
  std::string stream = encode_frame("{\"a\":1}") + "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" +
                       encode_frame("{\"b\":\"\xC3\xA9\"}") + encode_frame("[]");
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    FrameDecoder d;
    std::vector<FrameEvent> ev;
    d.feed(std::string_view(stream).substr(0, cut), ev);
    d.feed(std::string_view(stream).substr(cut), ev);
    INFO("cut at " << cut);
    REQUIRE(errors(ev) == 0);
    CHECK(messages(ev) == std::vector<std::string>{"{\"a\":1}", "{\"b\":\"\xC3\xA9\"}", "[]"});
  }
  // And one byte at a time.
  FrameDecoder d;
  std::vector<FrameEvent> ev;
  for (char c : stream) d.feed(std::string_view(&c, 1), ev);
  CHECK(messages(ev).size() == 3);
}

TEST_CASE("framing: header names are case-insensitive, other headers are ignored", "[framing]") {
  FrameDecoder d;
  auto ev = feed_all(d, "content-length:  2 \r\nContent-Type: x\r\n\r\n{}");
  CHECK(messages(ev) == std::vector<std::string>{"{}"});
}

TEST_CASE("framing: a message with Content-Length 0 has an empty body", "[framing]") {
  FrameDecoder d;
  auto ev = feed_all(d, "Content-Length: 0\r\n\r\n" + encode_frame("{}"));
  CHECK(messages(ev) == std::vector<std::string>{"", "{}"});
}

TEST_CASE("framing: missing Content-Length is an error and the next message still decodes", "[framing]") {
  FrameDecoder d;
  auto ev = feed_all(d, "Content-Type: x\r\n\r\n{\"lost\":1}" + encode_frame("{\"ok\":1}"));
  REQUIRE(errors(ev) == 1);
  CHECK(ev[0].body.find("missing Content-Length") != std::string::npos);
  CHECK(messages(ev) == std::vector<std::string>{"{\"ok\":1}"});
}

TEST_CASE("framing: a non-numeric or conflicting Content-Length is an error", "[framing]") {
  FrameDecoder d;
  auto ev = feed_all(d, "Content-Length: abc\r\n\r\n" + encode_frame("{}"));
  CHECK(errors(ev) == 1);
  CHECK(messages(ev) == std::vector<std::string>{"{}"});
  FrameDecoder d2;
  auto ev2 = feed_all(d2, "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}" + encode_frame("{}"));
  CHECK(errors(ev2) == 1);
  CHECK(messages(ev2) == std::vector<std::string>{"{}"});
  FrameDecoder d3;
  auto ev3 = feed_all(d3, "Content-Length: 99999999999999999999999\r\n\r\n" + encode_frame("{}"));
  CHECK(errors(ev3) == 1);
  CHECK(messages(ev3) == std::vector<std::string>{"{}"});
}

TEST_CASE("framing: a body over the limit is reported and skipped without buffering", "[framing]") {
  FrameDecoder d(1000);
  std::vector<FrameEvent> ev;
  d.feed("Content-Length: 5000\r\n\r\n", ev);
  REQUIRE(errors(ev) == 1);
  CHECK(ev[0].body.find("exceeds the limit of 1000 bytes") != std::string::npos);
  CHECK(d.mid_message());
  for (int i = 0; i < 50; ++i) d.feed(std::string(100, 'x'), ev);
  CHECK_FALSE(d.mid_message());
  d.feed(encode_frame("{}"), ev);
  CHECK(messages(ev) == std::vector<std::string>{"{}"});
}

TEST_CASE("framing: the default limit is 64 MiB", "[framing]") {
  FrameDecoder d;
  auto ev = feed_all(d, "Content-Length: 104857600\r\n\r\n");
  REQUIRE(errors(ev) == 1);
  CHECK(ev[0].body.find("104857600 exceeds the limit of 67108864") != std::string::npos);
}

TEST_CASE("framing: a declared 2 GB body is refused at once and skipped unstored", "[framing]") {
  FrameDecoder d;
  auto ev = feed_all(d, "Content-Length: 2147483648\r\n\r\n");
  REQUIRE(errors(ev) == 1);
  CHECK(ev[0].body.find("2147483648 exceeds the limit of 67108864") != std::string::npos);
  // Its bytes go by without being kept: nothing is pending but the count still to skip.
  const std::string chunk(1 << 20, 'x');
  for (int i = 0; i < 4; ++i) CHECK(feed_all(d, chunk).empty());
  CHECK(d.describe_pending().find("2143289344") != std::string::npos);
}

TEST_CASE("framing: an endless header block is dropped and decoding resumes", "[framing]") {
  FrameDecoder d;
  std::vector<FrameEvent> ev;
  d.feed(std::string(wafer::kMaxHeaderBytes + 10, 'h'), ev);
  CHECK(errors(ev) == 1);
  d.feed(encode_frame("{}"), ev);
  CHECK(messages(ev) == std::vector<std::string>{"{}"});
}

TEST_CASE("framing: garbage before a header resyncs at the next Content-Length", "[framing]") {
  FrameDecoder d;
  auto ev = feed_all(d, "garbage\r\n\r\n" + encode_frame("{\"x\":1}"));
  CHECK(errors(ev) == 1);
  CHECK(messages(ev) == std::vector<std::string>{"{\"x\":1}"});
}

TEST_CASE("framing: an unfinished message is visible at end of input", "[framing]") {
  FrameDecoder d;
  std::vector<FrameEvent> ev;
  d.feed("Content-Length: 50\r\n\r\n{\"partial\":", ev);
  CHECK(ev.empty());
  CHECK(d.mid_message());
  CHECK(d.describe_pending() == "body incomplete: 11 of 50 bytes");
  FrameDecoder h;
  h.feed("Content-Len", ev);
  CHECK(h.mid_message());
  FrameDecoder idle;
  CHECK_FALSE(idle.mid_message());
}
