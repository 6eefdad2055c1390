// LSP base-protocol framing: `Content-Length: N\r\n\r\n` + N bytes of JSON. The decoder is
// a pure state machine over bytes (no I/O), so it can be unit-tested at every split point
// and fuzzed. Bad input yields error events and the decoder resynchronises; it never
// buffers more than the header limit plus one body of at most max_body bytes.
//
// Resync rules:
//  - a header block without a valid Content-Length (missing, not a number, several that
//    disagree) or with a malformed line is dropped; decoding restarts at the next
//    "Content-Length:" after the block's blank line;
//  - a header block longer than kMaxHeaderBytes without its blank line is dropped the same
//    way;
//  - a Content-Length above max_body is reported and its body is skipped byte by byte as
//    it arrives (never stored), so the messages after it still decode.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace wafer {

inline constexpr size_t kDefaultMaxBody = size_t{64} << 20;  // 64 MiB
inline constexpr size_t kMaxHeaderBytes = 8192;

struct FrameEvent {
  enum class Kind { kMessage, kError } kind = Kind::kMessage;
  std::string body;  // kMessage: the JSON text; kError: a message for the log / reply
};

class FrameDecoder {
 public:
  explicit FrameDecoder(size_t max_body = kDefaultMaxBody) : max_body_(max_body) {}

  // Consumes bytes, appending complete messages and errors to out in input order.
  void feed(std::string_view bytes, std::vector<FrameEvent>& out);

  // True when bytes of an unfinished message (header or body) are buffered: at end of
  // input this means the peer closed the stream mid-message.
  bool mid_message() const;
  // What an unfinished message is missing, for the log at end of input.
  std::string describe_pending() const;

 private:
  enum class State { kHeader, kBody, kSkipBody, kResync };
  // Decodes header blocks buffered in buf_; returns the bytes after a header block whose
  // body is now expected (state kBody or kSkipBody), or "" when more input is needed.
  std::string pump_headers(std::vector<FrameEvent>& out);
  void parse_headers(std::vector<FrameEvent>& out);

  size_t max_body_;
  State state_ = State::kHeader;
  std::string buf_;        // pending header bytes or body bytes
  size_t body_length_ = 0; // kBody / kSkipBody: bytes expected (kSkipBody: still to skip)
};

// Frames one JSON body for sending.
std::string encode_frame(std::string_view body);

}  // namespace wafer
