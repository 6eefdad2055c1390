#include "server/document/documents.h"

#include <algorithm>

#include "server/document/utf8.h"

namespace wafer {
namespace {

std::vector<size_t> compute_line_starts(std::string_view text) {
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      starts.push_back(i + 1);
    } else if (text[i] == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
      starts.push_back(i + 1);
    }
  }
  return starts;
}

Point point_at(std::string_view text, size_t offset) {
  Point p;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') ++p.row, line_start = i + 1;
  p.column = static_cast<uint32_t>(offset - line_start);
  return p;
}

Point advance_point(Point p, std::string_view inserted) {
  size_t last_nl = inserted.rfind('\n');
  if (last_nl == std::string_view::npos) {
    p.column += static_cast<uint32_t>(inserted.size());
    return p;
  }
  p.row += static_cast<uint32_t>(std::count(inserted.begin(), inserted.end(), '\n'));
  p.column = static_cast<uint32_t>(inserted.size() - last_nl - 1);
  return p;
}

}  // namespace

ByteEdit insertion_edit(std::string_view text, size_t at, std::string_view inserted) {
  ByteEdit e;
  e.start = e.old_end = at;
  e.new_end = at + inserted.size();
  e.start_point = e.old_end_point = point_at(text, at);
  e.new_end_point = advance_point(e.start_point, inserted);
  return e;
}

std::string_view Snapshot::line(size_t i) const {
  if (i >= line_starts.size()) return {};
  size_t b = line_starts[i];
  size_t e = i + 1 < line_starts.size() ? line_starts[i + 1] : text.size();
  while (e > b && (text[e - 1] == '\n' || text[e - 1] == '\r')) --e;
  return std::string_view(text).substr(b, e - b);
}

std::shared_ptr<const Snapshot> make_snapshot(std::string uri, std::string language_id, int64_t version,
                                              std::string text) {
  auto s = std::make_shared<Snapshot>();
  s->uri = std::move(uri);
  s->language_id = std::move(language_id);
  s->version = version;
  s->text = std::move(text);
  s->line_starts = compute_line_starts(s->text);
  return s;
}

Result<size_t> offset_at(const Snapshot& s, const TextPosition& p, PositionEncoding enc) {
  if (p.line < 0 || p.character < 0) return make_error("negative position");
  auto lines = static_cast<int64_t>(s.line_count());
  if (p.line >= lines) {
    // {line: lineCount, character: 0} is the end of the document (clients use it to
    // replace everything); anything further is out of range.
    if (p.line == lines && p.character == 0) return s.text.size();
    return make_error("position " + std::to_string(p.line) + ":" + std::to_string(p.character) +
                      " is past the end of the document (" + std::to_string(lines) + " lines)");
  }
  std::string_view line = s.line(static_cast<size_t>(p.line));
  size_t base = s.line_starts[static_cast<size_t>(p.line)];
  if (enc == PositionEncoding::kUtf8) {
    auto col = static_cast<size_t>(p.character);
    if (col >= line.size()) return base + line.size();  // clamped to the line end
    // Inside a well-formed multi-byte sequence? Walk from the line start.
    for (size_t i = 0; i < col;) {
      size_t n = utf8_sequence_length(line, i);
      n = n ? n : 1;
      if (i + n > col) return make_error("position " + std::to_string(p.line) + ":" + std::to_string(p.character) +
                                         " is inside a multi-byte UTF-8 character");
      i += n;
    }
    return base + col;
  }
  int64_t units = 0;
  size_t i = 0;
  while (i < line.size() && units < p.character) {
    size_t n = utf8_sequence_length(line, i);
    int64_t w = n == 4 ? 2 : 1;
    if (units + w > p.character)
      return make_error("position " + std::to_string(p.line) + ":" + std::to_string(p.character) +
                        " is inside a UTF-16 surrogate pair");
    units += w;
    i += n ? n : 1;
  }
  return base + i;  // past the end of the line: clamped
}

TextPosition position_at(const Snapshot& s, size_t offset, PositionEncoding enc) {
  offset = std::min(offset, s.text.size());
  auto it = std::upper_bound(s.line_starts.begin(), s.line_starts.end(), offset);
  size_t line = static_cast<size_t>(it - s.line_starts.begin()) - 1;
  std::string_view text = s.line(line);
  size_t col_bytes = std::min(offset - s.line_starts[line], text.size());
  std::string_view head = text.substr(0, col_bytes);
  int64_t character = 0;
  if (enc == PositionEncoding::kUtf8) {
    character = static_cast<int64_t>(col_bytes);
  } else {
    // Count whole sequences only (an offset inside one rounds down).
    size_t i = 0;
    while (i < head.size()) {
      size_t n = utf8_sequence_length(text, i);
      n = n ? n : 1;
      if (i + n > head.size()) break;
      character += n == 4 ? 2 : 1;
      i += n;
    }
  }
  return {static_cast<int64_t>(line), character};
}

Result<size_t> DocumentStore::total_after(size_t old_bytes, size_t new_bytes, const std::string& uri) const {
  const size_t total = total_bytes_ - old_bytes + new_bytes;
  if (total > limits_.max_total_bytes)
    return make_error("the open documents would hold " + std::to_string(total) + " bytes, more than the limit of " +
                      std::to_string(limits_.max_total_bytes) + " (--max-document-mib); " + uri +
                      " is left as it was: close documents to make room");
  return total;
}

Status DocumentStore::open(const DocumentText& item) {
  std::string key = document_key(item.uri, rules_);
  auto it = docs_.find(key);
  if (it == docs_.end() && docs_.size() >= limits_.max_documents)
    return make_error("too many open documents: the limit is " + std::to_string(limits_.max_documents) +
                      " (--max-open-documents); " + item.uri + " is not opened: close documents to make room");
  Result<size_t> total = total_after(it == docs_.end() ? 0 : it->second->text.size(), item.text.size(), item.uri);
  if (!total) return total.error();
  docs_[std::move(key)] = make_snapshot(item.uri, item.language_id, item.version, item.text);
  total_bytes_ = *total;
  return {};
}

Result<DocumentStore::Applied> DocumentStore::change(const std::string& uri, int64_t version,
                                                     const std::vector<TextChange>& changes, PositionEncoding enc) {
  auto it = docs_.find(document_key(uri, rules_));
  if (it == docs_.end()) return make_error("didChange for a document that is not open: " + uri);
  std::shared_ptr<const Snapshot> current = it->second;
  Applied applied;
  for (size_t k = 0; k < changes.size(); ++k) {
    const auto& c = changes[k];
    if (!c.range) {
      current = make_snapshot(current->uri, current->language_id, version, c.text);
      applied.full_text = true;
      applied.edits.clear();
      continue;
    }
    Result<size_t> start = offset_at(*current, c.range->start, enc);
    Result<size_t> end = offset_at(*current, c.range->end, enc);
    std::string where = "contentChanges[" + std::to_string(k) + "].range";
    if (!start) return make_error(where + ".start: " + start.error().message);
    if (!end) return make_error(where + ".end: " + end.error().message);
    if (*end < *start) return make_error(where + ": end precedes start");
    ByteEdit e;
    e.start = *start;
    e.old_end = *end;
    e.new_end = *start + c.text.size();
    e.start_point = point_at(current->text, e.start);
    e.old_end_point = point_at(current->text, e.old_end);
    e.new_end_point = advance_point(e.start_point, c.text);
    std::string text;
    text.reserve(current->text.size() - (e.old_end - e.start) + c.text.size());
    text.append(current->text, 0, e.start).append(c.text).append(current->text, e.old_end);
    current = make_snapshot(current->uri, current->language_id, version, std::move(text));
    applied.edits.push_back(e);
  }
  if (changes.empty()) {  // a version bump only
    auto bumped = std::make_shared<Snapshot>(*current);
    bumped->version = version;
    current = std::move(bumped);
  }
  Result<size_t> total = total_after(it->second->text.size(), current->text.size(), uri);
  if (!total) return total.error();
  total_bytes_ = *total;
  applied.snapshot = current;
  it->second = std::move(current);
  return applied;
}

bool DocumentStore::close(const std::string& uri) {
  auto it = docs_.find(document_key(uri, rules_));
  if (it == docs_.end()) return false;
  total_bytes_ -= it->second->text.size();
  docs_.erase(it);
  return true;
}

std::shared_ptr<const Snapshot> DocumentStore::get(const std::string& uri) const {
  auto it = docs_.find(document_key(uri, rules_));
  return it == docs_.end() ? nullptr : it->second;
}

}  // namespace wafer
