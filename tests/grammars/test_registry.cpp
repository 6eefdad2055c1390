// Every bundled grammar loads in the pinned runtime and parses a real snippet without
// errors; lookups by languageId and by path find the right language.
#include <catch2/catch.hpp>
#include <tree_sitter/api.h>

#include <map>
#include <string>

#include "grammars/registry.h"

namespace {

const std::map<std::string, std::string>& snippets() {
  static const std::map<std::string, std::string> m = {
      {"python", "import os\n\nclass A:\n    def f(self, x: int) -> int:\n        return x + 1\n"},
      {"javascript", "export function add(a, b) {\n  const s = `${a}`;\n  return a + b;\n}\n"},
      {"typescript", "interface P { x: number }\nexport const f = (p: P): number => p.x * 2;\n"},
      {"tsx", "export const App = (p: {n: number}) => <div className=\"a\">{p.n}</div>;\n"},
      {"c", "#include <stdio.h>\nint main(void) {\n  printf(\"hi\\n\");\n  return 0;\n}\n"},
      {"cpp", "#include <vector>\ntemplate <typename T>\nT sum(const std::vector<T>& v) {\n  T s{};\n  for (auto& x : v) s += x;\n  return s;\n}\n"},
      {"rust", "fn main() {\n    let v: Vec<i32> = (0..3).collect();\n    println!(\"{:?}\", v);\n}\n"},
      {"go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n"},
      {"java", "public class A {\n  public static void main(String[] args) {\n    System.out.println(1);\n  }\n}\n"},
      {"lua", "local function f(t)\n  for k, v in pairs(t) do print(k, v) end\n  return #t\nend\n"},
      {"bash", "#!/bin/bash\nfor f in *.txt; do\n  echo \"$f\" | wc -c\ndone\n"},
      {"json", "{\"a\": [1, 2.5, true, null], \"b\": {\"c\": \"d\"}}\n"},
      {"ruby", "class A\n  def f(x)\n    x.map { |y| y * 2 }\n  end\nend\n"},
      {"css", "body > .a:hover { color: #fff; margin: 0 auto; }\n"},
  };
  return m;
}

}  // namespace

TEST_CASE("every bundled language parses a snippet without errors", "[grammars]") {
  auto langs = wafer::grammars::all_languages();
  REQUIRE(langs.size() >= 12);
  for (const auto& lang : langs) {
    INFO("language: " << lang.name);
    auto it = snippets().find(std::string(lang.name));
    REQUIRE(it != snippets().end());  // every language has a snippet here
    const TSLanguage* ts = lang.grammar();
    REQUIRE(ts != nullptr);
    uint32_t abi = ts_language_abi_version(ts);
    CHECK(abi >= TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION);
    CHECK(abi <= TREE_SITTER_LANGUAGE_VERSION);
    TSParser* parser = ts_parser_new();
    REQUIRE(ts_parser_set_language(parser, ts));
    const std::string& src = it->second;
    TSTree* tree = ts_parser_parse_string(parser, nullptr, src.data(), static_cast<uint32_t>(src.size()));
    REQUIRE(tree != nullptr);
    TSNode root = ts_tree_root_node(tree);
    char* sexp = ts_node_string(root);
    INFO("tree: " << sexp);
    CHECK_FALSE(ts_node_has_error(root));
    CHECK(ts_node_child_count(root) > 0);
    std::free(sexp);
    ts_tree_delete(tree);
    ts_parser_delete(parser);
  }
}

TEST_CASE("a syntax error is reported as an error node", "[grammars]") {
  const auto* py = wafer::grammars::language_by_id("python");
  REQUIRE(py);
  TSParser* parser = ts_parser_new();
  REQUIRE(ts_parser_set_language(parser, py->grammar()));
  std::string src = "def f(:\n  return )\n";
  TSTree* tree = ts_parser_parse_string(parser, nullptr, src.data(), static_cast<uint32_t>(src.size()));
  CHECK(ts_node_has_error(ts_tree_root_node(tree)));
  ts_tree_delete(tree);
  ts_parser_delete(parser);
}

TEST_CASE("languages are found by languageId, alias and path", "[grammars]") {
  using namespace wafer::grammars;
  REQUIRE(language_by_id("python"));
  CHECK(language_by_id("python")->name == "python");
  CHECK(language_by_id("typescriptreact")->name == "tsx");
  CHECK(language_by_id("shellscript")->name == "bash");
  CHECK(language_by_id("cobol") == nullptr);
  CHECK(language_by_path("/a/b/main.rs")->name == "rust");
  CHECK(language_by_path("x.hpp")->name == "cpp");
  CHECK(language_by_path("file:///w/App.tsx")->name == "tsx");
  CHECK(language_by_path("Makefile") == nullptr);
  CHECK(language_by_path("") == nullptr);
}
