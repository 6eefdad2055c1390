// The places the user recently edited, as a small ring of text chunks for the prompt (the
// idea of llama.vim's ring of recently seen chunks, driven here by edits): while the user
// keeps editing near one place it is the active region; an edit elsewhere (another
// document, or more than kJoinLines away) closes it, and its lines, as they read then,
// join the ring. The prompt shows the ring's chunks before the current file, oldest first,
// so the ring changes only when the user moves to another place, which moves the window
// and its cached prompt anyway: while typing in one place the prompt's start stays put.
// Text the user yanked or copied joins the ring too (yanked_lines, yanked_text), as
// llama.vim's ring of yanked chunks does.
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
#include "server/document/documents.h"

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
  // Text the user yanked or copied joins the ring as a chunk: the whole lines first..last
  // of s (kMaxLines of them at most, from the first), or a text of its own (its first
  // kMaxLines lines) labelled by `uri` ("" when no document is known). What is already
  // in the ring (a chunk that contains it) changes nothing, so the prompt stays put; a
  // chunk of the same document it contains is replaced. Whitespace alone and a text over
  // kMaxBytes are left out. The generation changes only when the ring does.
  enum class Yank { kAdded, kAlreadyThere, kBlank, kTooLong, kOutside };
  Yank yanked_lines(const Snapshot& s, size_t first, size_t last);
  Yank yanked_text(std::string uri, std::string_view text);

  // Drops the document's chunks and its active region (its text must not be shown).
  void forget(const std::string& uri);

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
  // Adds a chunk (text ending in a newline), replacing the chunks of its document it
  // contains or that contain it; then keeps the newest kMaxChunks.
  void push(std::string uri, std::string text);

  std::optional<Region> active_;
  std::deque<Chunk> chunks_;
  SnapshotOf snapshot_of_;
  uint64_t generation_ = 0;
};

}  // namespace wafer
