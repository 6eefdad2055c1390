// Golden tests for each post-processing filter with the field's known bad cases:
// duplicated suffix, duplicated closing brackets, repeating the next lines, trailing and
// whitespace-only results, tabs vs spaces.
#include <catch2/catch.hpp>

#include <algorithm>

#include "server/prompt/filters.h"
#include "tests/server/context_fixture.h"

using namespace wafer;
using wafer::test::facts_at;

TEST_CASE("filters: trailing whitespace", "[filters]") {
  CHECK(trim_trailing_whitespace("x = 1  \n    y = 2\t\n\n\n") == "x = 1\n    y = 2");
  CHECK(trim_trailing_whitespace("   ") == "");
  CHECK(trim_trailing_whitespace("  x") == "  x");
  CHECK(trim_trailing_whitespace("\n    return x") == "\n    return x");
}

TEST_CASE("filters: whitespace only", "[filters]") {
  CHECK(is_whitespace_only(" \n\t\n"));
  CHECK(is_whitespace_only(""));
  CHECK_FALSE(is_whitespace_only("\n  x"));
}

TEST_CASE("filters: suggestions that repeat the following lines", "[filters]") {
  // The model proposes exactly the next line (a classic of FIM models).
  CursorFacts f = facts_at("python", "def f(x):\n    |\n    return x * 2\n");
  CHECK(cut_repeated_following_lines("return x * 2", f) == "");
  CHECK(cut_repeated_following_lines("y = x\n    return x * 2", f) == "y = x");
  CHECK(cut_repeated_following_lines("y = x\n    return x*2", f) == "y = x\n    return x*2");
  // The first line is compared with the text before the cursor.
  CursorFacts g = facts_at("c", "int f() {\n  int a = |\n  int a = 1;\n}\n");
  CHECK(cut_repeated_following_lines("1;", g) == "");
  CHECK(cut_repeated_following_lines("2;", g) == "2;");
  // Nothing after the cursor: nothing to repeat.
  CHECK(cut_repeated_following_lines("x", facts_at("python", "y = |")) == "x");
}

TEST_CASE("filters: duplicated text after the cursor on its line", "[filters]") {
  CursorFacts f = facts_at("python", "x = compute(|)\n");
  CHECK(strip_duplicated_line_rest("a, b)", f) == "a, b");
  CHECK(strip_duplicated_line_rest("a, b", f) == "a, b");
  CursorFacts g = facts_at("javascript", "if (ready|) {\n}\n");
  CHECK(strip_duplicated_line_rest("State()) {", g) == "State()");
  CHECK(strip_duplicated_line_rest("State())", g) == "State()");
  CHECK(strip_duplicated_line_rest(") {", g) == "");
  CursorFacts h = facts_at("python", "print(|\"hi\")\n");
  CHECK(strip_duplicated_line_rest("\"hi\")", h) == "");
  CHECK(strip_duplicated_line_rest("name, ", h) == "name, ");
}

TEST_CASE("filters: closing brackets the suffix already has", "[filters]") {
  CursorFacts f = facts_at("javascript", "const x = [\n  foo(|\n)];\n");
  CHECK(drop_closers_in_suffix("1, 2)]", f) == "1, 2");
  CHECK(drop_closers_in_suffix("1, (2))]", f) == "1, (2)");
  CHECK(drop_closers_in_suffix("1, 2)", f) == "1, 2");  // the suffix provides ")" too
  CursorFacts open_call = facts_at("javascript", "const x = [\n  foo(|\n];\n");
  CHECK(drop_closers_in_suffix("1, 2)", open_call) == "1, 2)");  // "]" after the cursor, not ")"
  CursorFacts g = facts_at("c", "int f() {\n  return g(|\n");
  CHECK(drop_closers_in_suffix("1);", g) == "1);");  // nothing after the cursor closes it
  CursorFacts h = facts_at("rust", "fn f() {|\n}\n");
  CHECK(drop_closers_in_suffix("\n    1\n}", h) == "\n    1");
}

TEST_CASE("filters: indentation follows the document", "[filters]") {
  CursorFacts tabs = facts_at("go", "package m\n\nfunc f() {\n\tx := 1\n\tif x > 0 {|\n\t}\n}\n");
  REQUIRE(tabs.indent_unit == "\t");
  CHECK(normalize_indentation("\n        return", tabs) == "\n\t\treturn");
  CHECK(normalize_indentation("\n\t\treturn", tabs) == "\n\t\treturn");
  CursorFacts two = facts_at("javascript", "if (a) {\n  if (b) {\n    c();|\n  }\n}\n");
  REQUIRE(two.indent_unit == "  ");
  CHECK(normalize_indentation("\n\t\td();", two) == "\n    d();");
  CHECK(normalize_indentation("x\n    y", two) == "x\n    y");  // spaces in a spaces document stay
}

TEST_CASE("filters: postprocess runs the stop rules and every filter, naming what fired", "[filters]") {
  CursorFacts f = facts_at("python", "def f(x):\n    |\n    return x * 2\n");
  Postprocessed p = postprocess("y = x + 1   \n    return x * 2\n", f, decide_mode(f));
  CHECK(p.text == "y = x + 1");
  CHECK(std::find(p.fired.begin(), p.fired.end(), "repeats_following_lines") != p.fired.end());
  p = postprocess("   \n\n", f, Mode::kMultiLine);
  CHECK(p.text.empty());
  CursorFacts g = facts_at("python", "x = compute(|)\n");
  p = postprocess("a, b)\nprint(x)", g, decide_mode(g));
  CHECK(p.text == "a, b");
  CHECK(p.fired == std::vector<std::string>{"stop_single_line", "duplicated_line_rest"});
  CHECK(postprocess("a, b", g, Mode::kSingleLine).fired.empty());
}
