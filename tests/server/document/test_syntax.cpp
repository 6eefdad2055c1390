// The syntax tree after incremental edits equals a fresh parse of the same text.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>

#include <tree_sitter/api.h>

#include "server/document/documents.h"
#include "server/document/syntax.h"
#include "server/document/workspace.h"

using namespace wafer;

namespace {

std::string fresh_sexp(const grammars::Language& lang, const std::string& text) {
  SyntaxTree t(lang);
  t.reset(text);
  return t.sexp();
}

}  // namespace

TEST_CASE("syntax: language from languageId / then from the file extension", "[syntax]") {
  CHECK(detect_language("python", "file:///x")->name == "python");
  CHECK(detect_language("plaintext", "file:///a/b.rs")->name == "rust");
  CHECK(detect_language("", "file:///a/b.ts?query#frag")->name == "typescript");
  CHECK(detect_language("typescriptreact", "file:///a")->name == "tsx");
  CHECK(detect_language("cobol", "file:///a.cbl") == nullptr);
}

TEST_CASE("syntax: incremental reparse matches a fresh parse after edits", "[syntax]") {
  const grammars::Language* py = detect_language("python", "");
  REQUIRE(py);
  DocumentStore docs;
  std::string text = "def f(x):\n    return x\n\nclass C:\n    pass\n";
  REQUIRE(docs.open({"u", "python", 1, text}));
  SyntaxTree tree(*py);
  tree.reset(text);
  // A scripted sequence of edits, including multi-line and non-ASCII ones.
  std::vector<std::vector<TextChange>> steps = {
      {{TextRange{{1, 11}, {1, 12}}, "x + 1"}},
      {{TextRange{{2, 0}, {2, 0}}, "def g():\n    s = '中文😀'\n"}},
      {{TextRange{{0, 4}, {0, 5}}, "fun"}, {TextRange{{5, 4}, {5, 8}}, "x = (1,\n  2)"}},
      {{TextRange{{3, 11}, {3, 13}}, ""}},  // removes the emoji (2 UTF-16 units)
  };
  int64_t version = 1;
  for (const auto& step : steps) {
    auto r = docs.change("u", ++version, step, PositionEncoding::kUtf16);
    REQUIRE(r);
    tree.update(r->edits, r->snapshot->text);
    INFO(r->snapshot->text);
    CHECK(tree.sexp() == fresh_sexp(*py, r->snapshot->text));
  }
  CHECK_FALSE(tree.has_error());
}

TEST_CASE("syntax: a hypothetical insertion parses like the text it makes, leaving the original tree alone", "[syntax]") {
  const grammars::Language* py = detect_language("python", "");
  REQUIRE(py);
  const std::string text = "class C:\n    def area(self):\n        return \n\nx = 1\n";
  SyntaxTree tree(*py);
  tree.reset(text);
  const std::string before = tree.sexp();
  const size_t at = text.find("return ") + 7;
  const std::string inserted = "self.w * self.h\n\n    def name(self):\n        return 'c'";
  const std::string after = text.substr(0, at) + inserted + text.substr(at);
  const ByteEdit edit = insertion_edit(text, at, inserted);
  CHECK(edit.start == at);
  CHECK(edit.old_end == at);
  CHECK(edit.new_end == at + inserted.size());
  CHECK(edit.start_point.row == 2);
  CHECK(edit.start_point.column == 15);
  CHECK(edit.new_end_point.row == 5);
  CHECK(edit.new_end_point.column == 18);
  SharedTree next = parse_edited(*py, tree.snapshot().get(), edit, after);
  REQUIRE(next);
  char* s = ts_node_string(ts_tree_root_node(next.get()));
  const std::string got(s);
  std::free(s);
  CHECK(got == fresh_sexp(*py, after));
  CHECK(got != before);
  CHECK(tree.sexp() == before);
  // Without an old tree it is a fresh parse.
  SharedTree fresh = parse_edited(*py, nullptr, edit, after);
  REQUIRE(fresh);
  char* f = ts_node_string(ts_tree_root_node(fresh.get()));
  CHECK(std::string(f) == got);
  std::free(f);
}

TEST_CASE("syntax: random single-character edits stay equal to a fresh parse", "[syntax]") {
  const grammars::Language* c = detect_language("c", "");
  REQUIRE(c);
  std::string text = "int main(void) {\n  int a = 1;\n  if (a) { return a; }\n  return 0;\n}\n";
  DocumentStore docs;
  REQUIRE(docs.open({"u", "c", 1, text}));
  SyntaxTree tree(*c);
  tree.reset(text);
  std::mt19937 rng(7);
  const std::string alphabet = "ab{}();\n =1\"";
  for (int i = 0; i < 200; ++i) {
    auto snap = docs.get("u");
    std::uniform_int_distribution<size_t> pick(0, snap->text.size());
    size_t at = pick(rng);
    TextPosition p = position_at(*snap, at, PositionEncoding::kUtf8);
    TextPosition q = p;
    bool erase = rng() % 3 == 0 && at < snap->text.size() && snap->text[at] != '\n';
    if (erase) q.character += 1;
    std::string ins = erase ? "" : std::string(1, alphabet[rng() % alphabet.size()]);
    auto r = docs.change("u", i + 2, {{TextRange{p, q}, ins}}, PositionEncoding::kUtf8);
    REQUIRE(r);
    tree.update(r->edits, r->snapshot->text);
  }
  CHECK(tree.sexp() == fresh_sexp(*c, docs.get("u")->text));
}

TEST_CASE("syntax: the workspace keeps text and tree in step and marks bad changes", "[syntax]") {
  Workspace ws;
  REQUIRE(ws.open({"file:///a.py", "python", 1, "x = 1\n"}));
  REQUIRE(ws.change("file:///a.py", 2, {{TextRange{{0, 4}, {0, 5}}, "[1, 2]"}}, PositionEncoding::kUtf16));
  auto v = ws.get("file:///a.py");
  REQUIRE(v);
  CHECK(v->snapshot->text == "x = [1, 2]\n");
  REQUIRE(v->tree);
  CHECK(v->language->name == "python");
  CHECK_FALSE(ws.change("file:///a.py", 3, {{TextRange{{7, 0}, {7, 1}}, "?"}}, PositionEncoding::kUtf16));
  CHECK(ws.get("file:///a.py")->out_of_sync);
  REQUIRE(ws.change("file:///a.py", 3, {{std::nullopt, "y = 2\n"}}, PositionEncoding::kUtf16));
  CHECK_FALSE(ws.get("file:///a.py")->out_of_sync);
  REQUIRE(ws.open({"file:///notes.txt", "plaintext", 1, "hello"}));
  CHECK(ws.get("file:///notes.txt")->tree == nullptr);
}
