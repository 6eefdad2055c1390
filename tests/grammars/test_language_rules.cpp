// The per-language completion rules: every bundled language has a row, every node type a
// row names exists in the pinned grammar (as a named node), and on real snippets the
// rules find the blocks, comments, strings and definitions they claim to.
#include <catch2/catch.hpp>
#include <tree_sitter/api.h>

#include <functional>
#include <set>
#include <string>

#include "grammars/language_rules.h"
#include "grammars/registry.h"

using namespace wafer::grammars;

namespace {

bool has_named_symbol(const TSLanguage* lang, std::string_view type) {
  return ts_language_symbol_for_name(lang, type.data(), static_cast<uint32_t>(type.size()), true) != 0;
}

// The named node types that occur in a parse of text.
std::set<std::string> node_types(const Language& lang, const std::string& text) {
  TSParser* p = ts_parser_new();
  ts_parser_set_language(p, lang.grammar());
  TSTree* t = ts_parser_parse_string(p, nullptr, text.data(), static_cast<uint32_t>(text.size()));
  std::set<std::string> out;
  std::function<void(TSNode)> walk = [&](TSNode n) {
    if (ts_node_is_named(n)) out.insert(ts_node_type(n));
    for (uint32_t i = 0; i < ts_node_child_count(n); ++i) walk(ts_node_child(n, i));
  };
  walk(ts_tree_root_node(t));
  ts_tree_delete(t);
  ts_parser_delete(p);
  return out;
}

}  // namespace

TEST_CASE("language rules: one row per bundled language, same order", "[language_rules]") {
  auto langs = all_languages();
  auto rules = all_language_rules();
  REQUIRE(rules.size() == langs.size());
  for (size_t i = 0; i < langs.size(); ++i) {
    CHECK(rules[i].name == langs[i].name);
    CHECK(language_rules(langs[i].name) == &rules[i]);
  }
  CHECK(language_rules("cobol") == nullptr);
}

TEST_CASE("language rules: every node type named exists in the grammar", "[language_rules]") {
  for (const LanguageRules& r : all_language_rules()) {
    const Language* lang = language_by_id(r.name);
    REQUIRE(lang != nullptr);
    const TSLanguage* ts = lang->grammar();
    for (auto set : {r.blocks, r.comments, r.strings, r.definitions, r.statements}) {
      CHECK_FALSE(set.empty());
      for (std::string_view type : set) {
        INFO(r.name << ": node type '" << type << "'");
        CHECK(has_named_symbol(ts, type));
      }
    }
    INFO(r.name << ": brackets '" << r.brackets << "'");
    CHECK(r.brackets.size() % 2 == 0);
    CHECK_FALSE(r.brackets.empty());
  }
}

TEST_CASE("language rules: real snippets contain the block, comment, string and definition types", "[language_rules]") {
  struct Case {
    std::string lang, text, block, comment, string, definition;
  };
  const Case cases[] = {
      {"python", "# c\ndef f(x):\n    return 'a'\n", "block", "comment", "string", "function_definition"},
      {"javascript", "// c\nfunction f(x) { return 'a'; }\n", "statement_block", "comment", "string", "function_declaration"},
      {"typescript", "// c\ninterface P { x: number }\nfunction f(): string { return 'a'; }\n", "statement_block", "comment", "string", "interface_declaration"},
      {"tsx", "// c\nfunction f() { return <div>{'a'}</div>; }\n", "statement_block", "comment", "string", "function_declaration"},
      {"c", "// c\nint f(void) { return \"a\"[0]; }\n", "compound_statement", "comment", "string_literal", "function_definition"},
      {"cpp", "// c\nclass A { int f() { return R\"(a)\"[0]; } };\n", "field_declaration_list", "comment", "raw_string_literal", "class_specifier"},
      {"rust", "// c\nfn f() -> &'static str { \"a\" }\n", "block", "line_comment", "string_literal", "function_item"},
      {"go", "package m\n// c\nfunc f() string { return \"a\" }\n", "block", "comment", "interpreted_string_literal", "function_declaration"},
      {"java", "// c\nclass A { String f() { return \"a\"; } }\n", "class_body", "line_comment", "string_literal", "method_declaration"},
      {"lua", "-- c\nlocal function f() return 'a' end\n", "block", "comment", "string", "function_declaration"},
      {"bash", "# c\nf() { echo \"a\"; }\n", "compound_statement", "comment", "string", "function_definition"},
      {"json", "{\"a\": [1, \"b\"]}\n", "object", "", "string", "pair"},
      {"ruby", "# c\nclass A\n  def f\n    'a'\n  end\nend\n", "body_statement", "comment", "string", "method"},
      {"css", "/* c */\na { content: \"a\"; }\n", "block", "comment", "string_value", "rule_set"},
  };
  for (const Case& c : cases) {
    INFO("language: " << c.lang);
    const LanguageRules* r = language_rules(c.lang);
    REQUIRE(r != nullptr);
    auto types = node_types(*language_by_id(c.lang), c.text);
    for (const std::string& t : {c.block, c.comment, c.string, c.definition}) {
      if (t.empty()) continue;
      INFO("node type " << t);
      CHECK(types.count(t) == 1);
    }
    CHECK(contains(r->blocks, c.block));
    if (!c.comment.empty()) CHECK(contains(r->comments, c.comment));
    CHECK(contains(r->strings, c.string));
    CHECK(contains(r->definitions, c.definition));
  }
}
