// The open documents: text kept in step with didOpen/didChange/didClose, published as
// versioned immutable snapshots. A completion job holds a shared_ptr<const Snapshot>, so
// it reads one consistent text however many edits arrive while it runs.
//
// Positions arrive in the negotiated encoding (UTF-8 bytes or UTF-16 code units) and are
// validated here: a character past the end of its line is clamped to the line end (as the
// spec says), but a line past the end of the document, a position inside a surrogate pair
// or inside a multi-byte UTF-8 sequence, or a range whose end precedes its start is an
// error — the change is refused as a whole and the text is left as it was.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/result.h"
#include "server/document/document_key.h"
#include "server/document/text_types.h"

namespace wafer {

struct Snapshot {
  std::string uri;
  std::string language_id;
  int64_t version = 0;
  std::string text;
  // Byte offset where each line starts; lines end at "\n", "\r\n" or "\r" (LSP's rule).
  std::vector<size_t> line_starts;

  size_t line_count() const { return line_starts.size(); }
  // The text of line i without its terminator.
  std::string_view line(size_t i) const;
};

// Builds a snapshot (computes line starts).
std::shared_ptr<const Snapshot> make_snapshot(std::string uri, std::string language_id, int64_t version,
                                              std::string text);

// Byte offset of a position, validated as described above.
Result<size_t> offset_at(const Snapshot& s, const TextPosition& p, PositionEncoding enc);
// Position of a byte offset (clamped to the text; an offset inside a sequence rounds down).
TextPosition position_at(const Snapshot& s, size_t offset, PositionEncoding enc);

// One applied change in bytes, with tree-sitter style points (row = count of '\n' before
// the offset, column = bytes since the last '\n'), for the syntax tree.
struct Point {
  uint32_t row = 0, column = 0;
};
struct ByteEdit {
  size_t start = 0, old_end = 0, new_end = 0;
  Point start_point, old_end_point, new_end_point;
};

// The edit that inserts `inserted` at byte `at` of `text`.
ByteEdit insertion_edit(std::string_view text, size_t at, std::string_view inserted);

// Caps on what the client may keep open, so that it cannot make the daemon hold any
// amount of text (the settings --max-open-documents and --max-document-mib).
struct DocumentLimits {
  size_t max_documents = SIZE_MAX;
  size_t max_total_bytes = SIZE_MAX;  // the texts of all open documents together
};

// Documents are found by their key (document_key.h): under the rules given, two spellings
// of one file's URI name one document, which keeps the URI it was opened with.
class DocumentStore {
 public:
  explicit DocumentStore(FileNameRules rules = {}) : rules_(rules) {}
  void set_limits(DocumentLimits limits) { limits_ = limits; }
  // Opens (or re-opens, replacing) a document; invalid UTF-8 in the text is kept as is. An
  // error, and nothing changes, when the documents would exceed the limits.
  Status open(const DocumentText& item);
  // Applies the changes in order, each to the result of the previous one. All or nothing:
  // on error (also when the result would exceed the limits) the document keeps its
  // previous snapshot. Returns the byte edits applied
  // (empty list plus full_text=true in the result when a change replaced the whole text).
  struct Applied {
    std::vector<ByteEdit> edits;
    bool full_text = false;  // some change replaced the whole text: reparse from scratch
    std::shared_ptr<const Snapshot> snapshot;
  };
  Result<Applied> change(const std::string& uri, int64_t version, const std::vector<TextChange>& changes,
                         PositionEncoding enc);
  bool close(const std::string& uri);
  std::shared_ptr<const Snapshot> get(const std::string& uri) const;
  size_t size() const { return docs_.size(); }
  size_t total_bytes() const { return total_bytes_; }
  const FileNameRules& rules() const { return rules_; }

 private:
  // The new total when a document of old_bytes becomes new_bytes; an error past the limit.
  Result<size_t> total_after(size_t old_bytes, size_t new_bytes, const std::string& uri) const;

  FileNameRules rules_;
  DocumentLimits limits_;
  size_t total_bytes_ = 0;
  std::map<std::string, std::shared_ptr<const Snapshot>, std::less<>> docs_;  // by document_key
};

}  // namespace wafer
