#include "server/prompt/extra_context.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <tree_sitter/api.h>

#include "server/prompt/token_estimate.h"

namespace wafer {
namespace {

bool is_function_like(std::string_view type) {
  return type.find("function") != std::string_view::npos || type.find("method") != std::string_view::npos ||
         type.find("constructor") != std::string_view::npos || type == "decorated_definition";
}

std::string node_text(const Snapshot& s, TSNode n) {
  uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
  if (e > s.text.size() || b > e) return {};
  return s.text.substr(b, e - b);
}

// The defined name: the "name" field, else the first identifier-like node found through
// the "declarator" fields or among the first descendants.
std::string definition_name(const Snapshot& s, TSNode n) {
  TSNode name = ts_node_child_by_field_name(n, "name", 4);
  if (!ts_node_is_null(name)) return node_text(s, name);
  for (TSNode d = ts_node_child_by_field_name(n, "declarator", 10); !ts_node_is_null(d);
       d = ts_node_child_by_field_name(d, "declarator", 10)) {
    std::string_view type = ts_node_type(d);
    if (type.ends_with("identifier")) return node_text(s, d);
    TSNode inner = ts_node_child_by_field_name(d, "name", 4);
    if (!ts_node_is_null(inner)) return node_text(s, inner);
  }
  // Breadth-first over two levels: `const f = ...` (variable_declarator's name), `type X ...`.
  for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
    TSNode c = ts_node_named_child(n, i);
    if (std::string_view(ts_node_type(c)).ends_with("identifier")) return node_text(s, c);
    TSNode inner = ts_node_child_by_field_name(c, "name", 4);
    if (!ts_node_is_null(inner)) return node_text(s, inner);
  }
  return {};
}

// The start of the body (the last block-like child), or the node's end when it has none.
uint32_t body_start(TSNode n, const grammars::LanguageRules& rules) {
  for (uint32_t i = ts_node_child_count(n); i-- > 0;) {
    TSNode c = ts_node_child(n, i);
    if (grammars::contains(rules.blocks, ts_node_type(c))) return ts_node_start_byte(c);
  }
  return ts_node_end_byte(n);
}

void collect(const Snapshot& s, TSNode n, const grammars::LanguageRules& rules, size_t max_lines, int depth,
             std::vector<Definition>& out) {
  if (depth > 8) return;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
    TSNode c = ts_node_named_child(n, i);
    std::string_view type = ts_node_type(c);
    if (grammars::contains(rules.comments, type) || grammars::contains(rules.strings, type)) continue;
    if (grammars::contains(rules.definitions, type)) {
      Definition d;
      d.name = definition_name(s, c);
      d.start = ts_node_start_byte(c);
      d.end = ts_node_end_byte(c);
      size_t lines = ts_node_end_point(c).row - ts_node_start_point(c).row + 1;
      if (lines <= max_lines) {
        d.snippet = node_text(s, c);
      } else {
        std::string head = s.text.substr(d.start, body_start(c, rules) - d.start);
        head.erase(head.find_last_not_of(" \t\r\n") + 1);
        d.snippet = head + (rules.indent_blocks ? "\n    ..." : " ...");
      }
      if (!d.name.empty()) out.push_back(std::move(d));
      // Members of classes, namespaces, impls, modules; not the locals of a function.
      if (!is_function_like(type)) collect(s, c, rules, max_lines, depth + 1, out);
      continue;
    }
    // Containers that are not definitions themselves (export_statement, template
    // declarations' bodies, declaration lists, class bodies, ...).
    if (ts_node_named_child_count(c) > 0) collect(s, c, rules, max_lines, depth + 1, out);
  }
}

bool overlaps(size_t a0, size_t a1, size_t b0, size_t b1) { return a0 < b1 && b0 < a1; }

}  // namespace

std::vector<Definition> find_definitions(const Snapshot& s, const TSTree* tree, const grammars::LanguageRules& rules,
                                         size_t max_lines) {
  std::vector<Definition> out;
  if (!tree) return out;
  collect(s, ts_tree_root_node(tree), rules, max_lines, 0, out);
  return out;
}

std::vector<std::string> identifiers_in(std::string_view text) {
  std::set<std::string> seen;
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (std::isalpha(c) || c == '_') {
      size_t j = i + 1;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      if (j - i >= 3) seen.emplace(text.substr(i, j - i));
      i = j;
    } else if (std::isdigit(c)) {
      while (i < text.size() && std::isalnum(static_cast<unsigned char>(text[i]))) ++i;
    } else {
      ++i;
    }
  }
  return {seen.begin(), seen.end()};
}

std::vector<ContextFile> build_extra_context(const std::vector<std::string>& referenced,
                                             const std::vector<ExtraSource>& sources, int budget_tokens) {
  std::vector<ContextFile> chunks;
  if (budget_tokens <= 0 || referenced.empty()) return chunks;
  size_t used = 0;
  std::set<std::string> taken;  // snippet texts already placed
  for (const ExtraSource& src : sources) {
    if (!src.definitions) continue;
    std::string chunk;
    const size_t header_cost = estimate_tokens(src.path) + 1;
    for (const Definition& d : *src.definitions) {
      if (!std::binary_search(referenced.begin(), referenced.end(), d.name)) continue;
      if (src.current && overlaps(d.start, d.end, src.window_begin, src.window_end)) continue;
      if (taken.count(d.snippet)) continue;
      size_t cost = (chunk.empty() ? header_cost : 0) + estimate_tokens(d.snippet) + 1;
      if (used + cost > static_cast<size_t>(budget_tokens)) continue;
      used += cost;
      taken.insert(d.snippet);
      chunk += d.snippet + "\n";
    }
    if (!chunk.empty()) chunks.push_back({src.path, std::move(chunk), src.current ? "same_file" : src.kind});
  }
  return chunks;
}

bool related_languages(std::string_view a, std::string_view b) {
  auto group = [](std::string_view l) -> std::string_view {
    if (l == "c" || l == "cpp") return "c";
    if (l == "javascript" || l == "typescript" || l == "tsx") return "js";
    return l;
  };
  return group(a) == group(b);
}

}  // namespace wafer
