#include "server/prompt/context.h"

#include <algorithm>
#include <array>
#include <vector>

#include <tree_sitter/api.h>

#include "server/prompt/token_estimate.h"

namespace wafer {
namespace {

// Moves a cut forward to the next UTF-8 sequence start.
size_t utf8_ceil(std::string_view s, size_t i) {
  while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  return i;
}

// The syntax facts the builder asks about; all false without a tree.
class SyntaxProbe {
 public:
  SyntaxProbe(const TSTree* tree, const grammars::LanguageRules* rules) : rules_(rules) {
    if (tree && rules) {
      root_ = ts_tree_root_node(tree);
      ok_ = true;
    }
  }

  // The comment or string node that strictly contains byte (start < byte < end), if any.
  bool token_around(size_t byte, TSNode* out = nullptr, bool comments = true, bool strings = true) const {
    if (!ok_) return false;
    const uint32_t b = static_cast<uint32_t>(byte);
    for (TSNode n = ts_node_descendant_for_byte_range(root_, b, b); !ts_node_is_null(n); n = ts_node_parent(n)) {
      if (ts_node_start_byte(n) >= b || ts_node_end_byte(n) <= b) continue;
      std::string_view type = ts_node_type(n);
      if ((comments && grammars::contains(rules_->comments, type)) || (strings && grammars::contains(rules_->strings, type))) {
        if (out) *out = n;
        return true;
      }
    }
    return false;
  }

  // The last row of the smallest block around the cursor that ends on a later row;
  // SIZE_MAX when there is none.
  size_t enclosing_block_end_row(size_t cursor, size_t cursor_row) const {
    if (!ok_) return SIZE_MAX;
    const uint32_t b = static_cast<uint32_t>(cursor);
    for (TSNode n = ts_node_descendant_for_byte_range(root_, b, b); !ts_node_is_null(n); n = ts_node_parent(n)) {
      if (!grammars::contains(rules_->blocks, ts_node_type(n))) continue;
      if (ts_node_start_byte(n) > b || ts_node_end_byte(n) < b) continue;
      size_t end_row = ts_node_end_point(n).row;
      if (end_row > cursor_row) return end_row;
    }
    return SIZE_MAX;
  }

  // Whether the tree is missing or has a parse error (typing leaves half-written tokens).
  bool unsure() const { return !ok_ || ts_node_has_error(root_); }

  // Whether the cursor is inside a comment (a line comment counts up to its line's end)
  // or a string.
  void cursor_facts(const Snapshot& s, size_t cursor, CursorFacts& f) const {
    if (!ok_) return;
    TSNode n;
    if (token_around(cursor, &n)) {
      std::string_view type = ts_node_type(n);
      f.in_comment = grammars::contains(rules_->comments, type);
      f.in_string = !f.in_comment;
      return;
    }
    // "x = 1  # note|": the comment ends at the cursor, but typing continues it.
    if (cursor == 0 || f.line_rest.find_first_not_of(" \t") != std::string::npos) return;
    const uint32_t b = static_cast<uint32_t>(cursor - 1);
    for (TSNode m = ts_node_descendant_for_byte_range(root_, b, b); !ts_node_is_null(m); m = ts_node_parent(m)) {
      if (!grammars::contains(rules_->comments, ts_node_type(m))) continue;
      std::string_view text(s.text.data() + ts_node_start_byte(m), ts_node_end_byte(m) - ts_node_start_byte(m));
      bool block_closed = text.size() >= 4 && (text.ends_with("*/") || text.ends_with("]]"));
      f.in_comment = !block_closed && ts_node_end_byte(m) >= cursor;
      return;
    }
  }

 private:
  const grammars::LanguageRules* rules_;
  TSNode root_{};
  bool ok_ = false;
};

bool ends_with_word(std::string_view s, std::string_view w) {
  if (!s.ends_with(w)) return false;
  if (s.size() == w.size()) return true;
  unsigned char c = static_cast<unsigned char>(s[s.size() - w.size() - 1]);
  return !(std::isalnum(c) || c == '_');
}

bool is_block_opener(std::string_view head) {
  size_t e = head.find_last_not_of(" \t");
  if (e == std::string_view::npos) return false;
  head = head.substr(0, e + 1);
  char c = head.back();
  if (c == '{' || c == '(' || c == '[' || c == ':') return true;
  for (std::string_view w : {"then", "do", "else", "begin"})
    if (ends_with_word(head, w)) return true;
  return head.ends_with("=>") || head.ends_with("->");
}

}  // namespace

void fit_to_context(FimWindow& w, int& extra_tokens, int context_length, int max_tokens) {
  if (context_length <= 0) return;
  const int room = std::max(16, context_length * 85 / 100 - max_tokens - 16);
  extra_tokens = std::min(extra_tokens, room / 4);
  w.suffix_tokens = std::min(w.suffix_tokens, room / 5);
  w.prefix_tokens = std::min(w.prefix_tokens, std::max(8, room - extra_tokens - w.suffix_tokens));
}

int estimated_context(const ModelInfo& model) {
  // Within the margin fit_to_context leaves for the estimate's error (15 %): unchanged.
  const size_t estimate = estimate_tokens(kTokenDensitySample);
  if (model.context_length <= 0 || model.sample_tokens <= 0 || static_cast<size_t>(model.sample_tokens) * 85 <= estimate * 100)
    return model.context_length;
  return static_cast<int>(static_cast<int64_t>(model.context_length) * static_cast<int64_t>(estimate) / model.sample_tokens);
}

std::string detect_indent_unit(const Snapshot& s) {
  size_t tabs = 0, spaces = 0;
  std::array<size_t, 9> deltas{};
  size_t prev = 0;
  const size_t lines = std::min<size_t>(s.line_count(), 4000);
  for (size_t i = 0; i < lines; ++i) {
    std::string_view l = s.line(i);
    size_t ws = l.find_first_not_of(" \t");
    if (ws == std::string_view::npos) continue;  // blank lines say nothing
    if (ws > 0 && l[0] == '\t') ++tabs;
    if (ws > 0 && l[0] == ' ') ++spaces;
    if (l[0] != '\t' && ws > prev && ws - prev <= 8) ++deltas[ws - prev];
    prev = l[0] == '\t' ? 0 : ws;
  }
  if (tabs > spaces) return "\t";
  size_t best = 4;
  for (size_t d = 1; d <= 8; ++d)
    if (deltas[d] > deltas[best]) best = d;
  return std::string(best, ' ');
}

FimContext build_context(const Snapshot& s, const TSTree* tree, const grammars::LanguageRules* rules, size_t cursor,
                         const FimWindow& w) {
  cursor = std::min(cursor, s.text.size());
  const SyntaxProbe probe(tree, rules);
  auto it = std::upper_bound(s.line_starts.begin(), s.line_starts.end(), cursor);
  const size_t line = static_cast<size_t>(it - s.line_starts.begin()) - 1;
  auto line_end = [&](size_t l) { return l + 1 < s.line_count() ? s.line_starts[l + 1] : s.text.size(); };
  const std::string_view text(s.text);

  // Prefix: tokens from each candidate line start to the cursor, counted upwards.
  const size_t cap = static_cast<size_t>(std::max(w.prefix_lines, 0));
  const size_t first_allowed = line >= cap ? line - cap : 0;
  std::vector<size_t> tokens_from(line - first_allowed + 1);
  tokens_from.back() = estimate_tokens(text.substr(s.line_starts[line], cursor - s.line_starts[line]));
  for (size_t l = line; l-- > first_allowed;)
    tokens_from[l - first_allowed] =
        tokens_from[l + 1 - first_allowed] + estimate_tokens(text.substr(s.line_starts[l], s.line_starts[l + 1] - s.line_starts[l]));
  auto fits = [&](size_t l) {
    return tokens_from[l - first_allowed] <= static_cast<size_t>(std::max(w.prefix_tokens, 0)) &&
           cursor - s.line_starts[l] <= w.max_bytes && (l == line || !probe.token_around(s.line_starts[l]));
  };
  const size_t step = static_cast<size_t>(std::max(w.prefix_step_lines, 1));
  size_t begin = SIZE_MAX;
  for (size_t l = (first_allowed + step - 1) / step * step; l <= line && begin == SIZE_MAX; l += step)
    if (fits(l)) begin = s.line_starts[l];
  // Lines too long for any step line: the first line that fits, else part of the cursor's line.
  for (size_t l = first_allowed; l <= line && begin == SIZE_MAX; ++l)
    if (fits(l)) begin = s.line_starts[l];
  if (begin == SIZE_MAX) {
    size_t keep = std::min(w.max_bytes, static_cast<size_t>(std::max(w.prefix_tokens, 1)) * 3);
    begin = utf8_ceil(text, cursor - std::min(keep, cursor - s.line_starts[line]));
  }

  // Suffix: up to the enclosing block's last line, within the line and token budgets.
  size_t last = std::min(line + static_cast<size_t>(std::max(w.suffix_lines, 0)), s.line_count() - 1);
  last = std::min(last, probe.enclosing_block_end_row(cursor, line));
  size_t end = line_end(last);
  auto suffix_fits = [&](size_t e) {
    return e - cursor <= w.max_bytes &&
           estimate_tokens(text.substr(cursor, e - cursor)) <= static_cast<size_t>(std::max(w.suffix_tokens, 0)) &&
           (e >= text.size() || !probe.token_around(e));
  };
  while (last > line && !suffix_fits(end)) end = line_end(--last);
  if (end - cursor > w.max_bytes) end = utf8_ceil(text, cursor + w.max_bytes);

  FimContext c;
  c.prefix_begin = begin;
  c.suffix_end = end;
  c.request.session_key = s.uri;
  c.request.prefix = s.text.substr(begin, cursor - begin);
  c.request.suffix = s.text.substr(cursor, end - cursor);
  if (w.copy_bytes > 0) {
    const size_t from = utf8_ceil(text, begin - std::min(begin, w.copy_bytes));
    const size_t to = utf8_ceil(text, std::min(text.size(), end + w.copy_bytes));
    c.request.copy_before = s.text.substr(from, begin - from);
    c.request.copy_after = s.text.substr(end, to - end);
  }

  CursorFacts& f = c.facts;
  std::string_view cursor_line = s.line(line);
  const size_t col = cursor - s.line_starts[line];
  f.line_head = std::string(cursor_line.substr(0, std::min(col, cursor_line.size())));
  f.line_rest = col < cursor_line.size() ? std::string(cursor_line.substr(col)) : std::string();
  f.indent = std::string(cursor_line.substr(0, std::min(cursor_line.find_first_not_of(" \t"), cursor_line.size())));
  size_t after = std::min(line_end(line), end);
  f.after_lines = s.text.substr(after, end - after);
  const size_t line_begin = s.line_starts[line];
  if (begin < line_begin) f.before_lines = s.text.substr(begin, line_begin - begin);
  f.after_opener = is_block_opener(f.line_head);
  if (rules) {
    f.indent_blocks = rules->indent_blocks;
    f.brackets = rules->brackets;
  }
  f.indent_unit = detect_indent_unit(s);
  probe.cursor_facts(s, cursor, f);
  if (probe.unsure() && !f.in_string && !f.in_comment) {
    // No tree, or a half-written string the parser could not make a token of: an odd
    // number of unescaped double quotes before the cursor.
    size_t quotes = 0;
    for (size_t i = 0; i < f.line_head.size(); ++i)
      if (f.line_head[i] == '"' && (i == 0 || f.line_head[i - 1] != '\\')) ++quotes;
    f.in_string = quotes % 2 == 1;
  }
  return c;
}

}  // namespace wafer
