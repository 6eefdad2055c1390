#include "server/lsp/framing.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace wafer {
namespace {

constexpr std::string_view kContentLength = "content-length:";

bool iequals_prefix(std::string_view s, std::string_view lower_prefix) {
  if (s.size() < lower_prefix.size()) return false;
  for (size_t i = 0; i < lower_prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != lower_prefix[i]) return false;
  return true;
}

// Position of the next "Content-Length:" (any case) in s at or after from, or npos.
size_t find_content_length(std::string_view s, size_t from) {
  for (size_t i = from; i < s.size(); ++i)
    if ((s[i] == 'C' || s[i] == 'c') && iequals_prefix(s.substr(i), kContentLength)) return i;
  return std::string_view::npos;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

void FrameDecoder::feed(std::string_view bytes, std::vector<FrameEvent>& out) {
  std::string carry;  // body bytes that followed a header block in the same read
  while (!bytes.empty()) {
    if (state_ == State::kSkipBody) {
      size_t n = std::min(bytes.size(), body_length_);
      body_length_ -= n;
      bytes.remove_prefix(n);
      if (body_length_ == 0) state_ = State::kHeader;
    } else if (state_ == State::kBody) {
      size_t n = std::min(bytes.size(), body_length_ - buf_.size());
      buf_.append(bytes.substr(0, n));
      bytes.remove_prefix(n);
      if (buf_.size() == body_length_) {
        out.push_back({FrameEvent::Kind::kMessage, std::move(buf_)});
        buf_.clear();
        state_ = State::kHeader;
      }
    } else {
      buf_.append(bytes);
      carry = pump_headers(out);
      bytes = carry;
    }
  }
}

std::string FrameDecoder::pump_headers(std::vector<FrameEvent>& out) {
  for (;;) {
    if (state_ == State::kResync) {
      size_t at = find_content_length(buf_, 0);
      if (at == std::string::npos) {
        // Keep a tail that could be the start of "Content-Length:" split across reads.
        size_t keep = std::min(buf_.size(), kContentLength.size() - 1);
        buf_.erase(0, buf_.size() - keep);
        return {};
      }
      buf_.erase(0, at);
      state_ = State::kHeader;
    }
    size_t end = buf_.find("\r\n\r\n");
    if (end == std::string::npos) {
      if (buf_.size() <= kMaxHeaderBytes) return {};
      out.push_back({FrameEvent::Kind::kError,
                     "header block longer than " + std::to_string(kMaxHeaderBytes) +
                         " bytes without a blank line; skipping to the next Content-Length"});
      buf_.erase(0, 1);  // never restart at the same position
      state_ = State::kResync;
      continue;
    }
    std::string rest = buf_.substr(end + 4);
    buf_.resize(end + 4);
    parse_headers(out);
    if (state_ == State::kBody || state_ == State::kSkipBody) return rest;
    buf_ += rest;  // kHeader (empty body) or kResync: keep scanning what follows
  }
}

void FrameDecoder::parse_headers(std::vector<FrameEvent>& out) {
  std::string_view block(buf_);
  block.remove_suffix(4);
  bool have_length = false;
  size_t length = 0;
  std::string problem;
  // Blank lines before a header are tolerated (some clients send a stray CRLF).
  while (block.starts_with("\r\n")) block.remove_prefix(2);
  while (problem.empty() && !block.empty()) {
    size_t eol = block.find("\r\n");
    std::string_view line = block.substr(0, eol);
    block = eol == std::string_view::npos ? std::string_view{} : block.substr(eol + 2);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      problem = "malformed header line";
      break;
    }
    if (iequals_prefix(line, kContentLength)) {
      std::string_view v = trim(line.substr(colon + 1));
      size_t n = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (v.empty() || ec != std::errc() || p != v.data() + v.size()) {
        problem = ec == std::errc::result_out_of_range ? "Content-Length out of range"
                                                       : "Content-Length is not a number";
      } else if (have_length && n != length) {
        problem = "conflicting Content-Length headers";
      } else {
        have_length = true;
        length = n;
      }
    }
    // Other headers (Content-Type) are accepted and ignored: LSP only defines utf-8.
  }
  if (problem.empty() && !have_length) problem = "missing Content-Length header";
  if (!problem.empty()) {
    out.push_back({FrameEvent::Kind::kError, problem + "; skipping to the next Content-Length"});
    buf_.clear();  // drop the whole block; look for the next Content-Length after it
    state_ = State::kResync;
    return;
  }
  buf_.clear();
  if (length > max_body_) {
    out.push_back({FrameEvent::Kind::kError,
                   "Content-Length " + std::to_string(length) + " exceeds the limit of " +
                       std::to_string(max_body_) + " bytes; the message is skipped"});
    body_length_ = length;
    state_ = length ? State::kSkipBody : State::kHeader;
    return;
  }
  body_length_ = length;
  if (length == 0) {
    out.push_back({FrameEvent::Kind::kMessage, {}});
    state_ = State::kHeader;
  } else {
    state_ = State::kBody;
  }
}

bool FrameDecoder::mid_message() const {
  switch (state_) {
    case State::kBody:
    case State::kSkipBody: return true;
    case State::kHeader: return trim(std::string_view(buf_)).find_first_not_of("\r\n") != std::string_view::npos;
    case State::kResync: return false;
  }
  return false;
}

std::string FrameDecoder::describe_pending() const {
  switch (state_) {
    case State::kBody:
      return "body incomplete: " + std::to_string(buf_.size()) + " of " + std::to_string(body_length_) + " bytes";
    case State::kSkipBody: return "oversized body incomplete: " + std::to_string(body_length_) + " bytes missing";
    case State::kHeader: return "header incomplete (" + std::to_string(buf_.size()) + " bytes)";
    case State::kResync: return "no message pending";
  }
  return {};
}

std::string encode_frame(std::string_view body) {
  std::string s = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  s.append(body);
  return s;
}

}  // namespace wafer
