// The text side of a streamed completion: generated token bytes go in, text fit to show
// comes out. Two things are held back until they are settled:
//   - an incomplete UTF-8 sequence at the end (so every delta is whole characters), and
//   - a tail that could still turn into a stop string (so a stop string is never shown,
//     not even its first half).
// Once a stop string appears, the text is cut before it and nothing more is accepted.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wafer {

class CompletionText {
 public:
  explicit CompletionText(std::vector<std::string> stop_strings);

  // Adds bytes (already whole UTF-8 characters); returns the newly releasable text.
  std::string push(std::string_view bytes);
  // Ends the stream: releases the held-back tail (unless a stop string cut it).
  std::string finish();

  bool stopped() const { return stopped_; }           // a stop string was found
  const std::string& text() const { return text_; }  // everything accepted (cut at a stop)
  size_t released() const { return released_; }      // bytes of text() handed out so far

 private:
  size_t safe_end() const;  // text_ up to here can no longer start a stop string

  std::vector<std::string> stops_;
  std::string text_;
  size_t released_ = 0;
  bool stopped_ = false;
};

}  // namespace wafer
