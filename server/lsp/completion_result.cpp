#include "server/lsp/completion_result.h"

namespace wafer {

lsp::InlineCompletionList inline_completion_result(const std::string& text, const lsp::Position& cursor) {
  lsp::InlineCompletionList list;
  if (!text.empty()) list.items.push_back({text, {cursor, cursor}});
  return list;
}

lsp::InlineCompletionList inline_completion_result(const std::vector<std::string>& texts, const lsp::Position& cursor) {
  lsp::InlineCompletionList list;
  for (const std::string& text : texts)
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
