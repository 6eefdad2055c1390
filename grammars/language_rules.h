// What wafer knows about each bundled language beyond its grammar, for completion:
// which node types are blocks (a multi-line suggestion ends where one closes), comments
// and strings (a context window is never cut inside one, and a suggestion that starts in
// one stays on one line), definitions (extra context: signatures from other files), the
// bracket pairs, and the line-comment marker. One row per language in language_rules.cpp;
// tests/grammars/test_language_rules.cpp checks that every node type named exists in the
// pinned grammar, so a grammar upgrade that renames a node fails loudly.
#pragma once

#include <span>
#include <string_view>

namespace wafer::grammars {

struct LanguageRules {
  std::string_view name;  // the registry's language name
  std::span<const std::string_view> blocks;       // block-like nodes (bodies, braces, objects)
  std::span<const std::string_view> comments;     // comment nodes
  std::span<const std::string_view> strings;      // string-like tokens a cut must not split
  std::span<const std::string_view> definitions;  // functions, classes, types, ...
  std::span<const std::string_view> statements;   // statement-level nodes (ends of a complete statement)
  std::string_view brackets;    // pairs as "()[]{}" (opener, closer, opener, closer, ...)
  std::string_view line_comment;  // "#", "//", "--", or "" when the language has none
  bool indent_blocks = false;   // blocks end by dedent (python), not by a closing token
};

// The rules for a registry language name; nullptr when the language has no row.
const LanguageRules* language_rules(std::string_view name);

// Every row, in the registry's order.
std::span<const LanguageRules> all_language_rules();

// Membership tests for a node type name.
bool contains(std::span<const std::string_view> set, std::string_view type);

}  // namespace wafer::grammars
