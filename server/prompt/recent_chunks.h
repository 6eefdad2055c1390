// The places the user recently edited, as a small ring of text chunks for the prompt (the
// idea of llama.vim's ring of recently seen chunks, driven here by edits): while the user
// keeps editing near one place it is the active region; an edit elsewhere (another
// document, or more than kJoinLines away) closes it, and its lines, as they read then,
// join the ring. The prompt shows the ring's chunks before the current file, oldest first,
// so the ring changes only when the user moves to another place, which moves the window
// and its cached prompt anyway: while typing in one place the prompt's start stays put.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/types.h"
#include "server/prompt/documents.h"

namespace wafer {

class RecentChunks {
 public:
  static constexpr size_t kMaxChunks = 8;     // the ring's length
  static constexpr size_t kJoinLines = 24;    // an edit this close to the active region extends it
  static constexpr size_t kMarginLines = 4;   // lines kept around a region's edited lines
  static constexpr size_t kMaxLines = 32;     // a chunk's longest text, in lines
  static constexpr size_t kMaxBytes = 4096;   // and in bytes: a longer one (minified code, a 1 MB line) is left out

  struct Chunk {
    std::string uri;
    std::string text;
  };

  // An edit at `line` of the document s (its text after the edit).
  void edited(const Snapshot& s, size_t line);
  // The document's text as it reads now, for closing its region when the user moves on
  // (nullptr: closed; the region is dropped).
  using SnapshotOf = std::function<std::shared_ptr<const Snapshot>(const std::string& uri)>;
  void set_snapshot_of(SnapshotOf f) { snapshot_of_ = std::move(f); }

  // Chunks for a prompt whose window text (prefix + suffix) is `window`: oldest first,
  // none whose text the window shows, within budget_tokens (estimated), each named by
  // path_of(uri).
  std::vector<ContextFile> for_prompt(std::string_view window, int budget_tokens,
                                      const std::function<std::string(const std::string&)>& path_of) const;

  // Changes whenever the ring does (a key for caching a prompt's extra context).
  uint64_t generation() const { return generation_; }
  const std::deque<Chunk>& chunks() const { return chunks_; }

 private:
  struct Region {
    std::string uri;
    size_t first = 0, last = 0;  // edited lines
  };
  void close_active();

  std::optional<Region> active_;
  std::deque<Chunk> chunks_;
  SnapshotOf snapshot_of_;
  uint64_t generation_ = 0;
};

}  // namespace wafer
