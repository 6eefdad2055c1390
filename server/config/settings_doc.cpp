// The settings table as documentation: the options part of `wafer COMMAND --help`, and the
// table of settings in docs/settings.md that `wafer help settings` prints.
#include <string>

#include "server/config/settings_table.h"

namespace wafer {
namespace {

constexpr size_t kHelpWidth = 100;
constexpr size_t kHelpIndent = 24;

// Markdown as plain text: `code` loses its backticks and [text](#anchor) keeps the text.
std::string plain(std::string_view md) {
  std::string out;
  for (size_t i = 0; i < md.size(); ++i) {
    char c = md[i];
    if (c == '`') continue;
    if (c == ']' && i + 1 < md.size() && md[i + 1] == '(') {
      size_t close = md.find(')', i);
      if (close != std::string_view::npos) {
        i = close;
        continue;
      }
    }
    if (c == '[') {
      size_t close = md.find(']', i);
      if (close != std::string_view::npos && close + 1 < md.size() && md[close + 1] == '(') continue;
    }
    out += c;
  }
  return out;
}

// Text in a Markdown table cell: a '|' would end the cell.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string metavar(const Setting& s) {
  if (!s.metavar.empty()) return std::string(s.metavar);
  return s.kind == SettingKind::OnOff ? "on|off" : "VALUE";
}

// Appends text to out, words wrapped at kHelpWidth, continuation lines indented; `column`
// is where text starts on the current line.
void wrap(std::string& out, std::string_view text, size_t column) {
  bool first = true;
  while (!text.empty()) {
    size_t sp = text.find(' ');
    std::string_view word = text.substr(0, sp);
    if (!first && column + 1 + word.size() > kHelpWidth) {
      out += "\n" + std::string(kHelpIndent, ' ');
      column = kHelpIndent;
    } else if (!first) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    first = false;
    if (sp == std::string_view::npos) break;
    text.remove_prefix(sp + 1);
  }
}

}  // namespace

std::string flags_help(std::string_view command) {
  std::string s;
  for (const Setting& f : settings_table()) {
    if (f.flag.empty() || !accepts(f, command)) continue;
    std::string left = "  " + std::string(f.flag) + (takes_value(f) ? " " + metavar(f) : "");
    if (left.size() < kHelpIndent) left.resize(kHelpIndent, ' ');
    else left += "  ";
    s += left;
    std::string text = plain(f.help);
    if (!f.def.empty()) text += " (default " + plain(f.def) + ")";
    wrap(s, text, left.size());
    s += "\n";
  }
  return s;
}

std::string settings_markdown() {
  std::string s =
      "| flag | setting key | default | meaning |\n"
      "|---|---|---|---|\n";
  for (const Setting& f : settings_table()) {
    if (!accepts(f, "lsp") && f.key.empty()) continue;
    std::string flag, key;
    if (!f.flag.empty()) flag = "`" + cell(std::string(f.flag) + (takes_value(f) ? " " + metavar(f) : "")) + "`";
    if (!f.key.empty()) {
      key = "`" + std::string(f.key) + "`";
      if (f.kind == SettingKind::OnOff) key += " (boolean)";
      if (f.kind == SettingKind::List) key += " (array)";
    }
    s += "|";
    for (const std::string& c : {flag, key, cell(f.def), cell(f.help)}) s += c.empty() ? " |" : " " + c + " |";
    s += "\n";
  }
  return s;
}

}  // namespace wafer
