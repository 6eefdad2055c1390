#include "server/completion.h"

#include <algorithm>

#include "server/utf8.h"

namespace wafer {
namespace {

// Moves a cut forward to the next UTF-8 sequence start.
size_t utf8_ceil(std::string_view s, size_t i) {
  while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  return i;
}

}  // namespace

FimWindow fim_window(const Options& o) {
  return {o.prefix_lines, o.suffix_lines, static_cast<size_t>(std::max(o.window_bytes, 1))};
}

CompletionRequest build_fim_request(const Snapshot& s, size_t cursor, const FimWindow& w) {
  cursor = std::min(cursor, s.text.size());
  auto it = std::upper_bound(s.line_starts.begin(), s.line_starts.end(), cursor);
  size_t line = static_cast<size_t>(it - s.line_starts.begin()) - 1;
  size_t first = line >= static_cast<size_t>(std::max(w.prefix_lines, 0)) ? line - static_cast<size_t>(w.prefix_lines) : 0;
  size_t begin = s.line_starts[first];
  // Drop whole lines from the top while over budget, but keep the cursor line's head.
  while (cursor - begin > w.max_bytes && first < line) begin = s.line_starts[++first];
  if (cursor - begin > w.max_bytes) begin = utf8_ceil(s.text, cursor - w.max_bytes);

  size_t last = std::min(line + static_cast<size_t>(std::max(w.suffix_lines, 0)), s.line_count() - 1);
  auto line_end = [&](size_t l) { return l + 1 < s.line_count() ? s.line_starts[l + 1] : s.text.size(); };
  size_t end = line_end(last);
  while (end - cursor > w.max_bytes && last > line) end = line_end(--last);
  if (end - cursor > w.max_bytes) end = utf8_ceil(s.text, cursor + w.max_bytes);

  CompletionRequest r;
  r.session_key = s.uri;
  r.prefix = s.text.substr(begin, cursor - begin);
  r.suffix = s.text.substr(cursor, end - cursor);
  return r;
}

lsp::InlineCompletionList inline_completion_result(const std::string& text, const lsp::Position& cursor) {
  lsp::InlineCompletionList list;
  if (!text.empty()) list.items.push_back({text, {cursor, cursor}});
  return list;
}

lsp::CompletionList completion_result(const std::string& text, const lsp::Position& cursor) {
  lsp::CompletionList list;
  if (text.empty()) return list;
  lsp::CompletionItem item;
  std::string_view first_line(text);
  first_line = first_line.substr(0, first_line.find('\n'));
  item.label = std::string(first_line);
  if (item.label.find_first_not_of(" \t") == std::string::npos) item.label = text;
  item.detail = "wafer";
  item.filter_text = item.label;
  item.text_edit = {{cursor, cursor}, text};
  list.items.push_back(std::move(item));
  return list;
}

}  // namespace wafer
