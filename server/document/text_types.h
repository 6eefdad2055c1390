// The plain value types of the document layer: positions, ranges, changes and a document's
// whole text. They carry what the editor sent and nothing of the wire: the LSP layer reads
// them from JSON (server/lsp/protocol.h names them as the specification does), and
// `wafer complete` and the benchmarks build them directly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace wafer {

// How a position's character counts: UTF-8 bytes or UTF-16 code units (LSP's default).
enum class PositionEncoding { kUtf8, kUtf16 };
const char* to_string(PositionEncoding e);

// A zero-based line and a character offset in it, in some PositionEncoding's units.
struct TextPosition {
  int64_t line = 0;
  int64_t character = 0;
  friend bool operator==(const TextPosition&, const TextPosition&) = default;
};

struct TextRange {
  TextPosition start, end;
  friend bool operator==(const TextRange&, const TextRange&) = default;
};

// One change to a document: the whole text when range is absent, else a replacement of range.
struct TextChange {
  std::optional<TextRange> range;
  std::string text;
};

// A document as opened: its URI, language, version and whole text.
struct DocumentText {
  std::string uri;
  std::string language_id;
  int64_t version = 0;
  std::string text;
};

}  // namespace wafer
