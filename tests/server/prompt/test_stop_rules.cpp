// Mode decision and stop rules on real snippets per language: where a multi-line
// suggestion ends (indentation drop, block end, blank line, unmatched bracket).
#include <catch2/catch.hpp>

#include "server/prompt/stop_rules.h"
#include "tests/server/context_fixture.h"

using namespace wafer;
using wafer::test::facts_at;

namespace {

// The suggestion after the stop rules (the whole text when no rule stopped it).
std::string cut(const std::string& lang, const std::string& doc, const std::string& raw) {
  CursorFacts f = facts_at(lang, doc);
  StopPoint s = find_stop(raw, f, decide_mode(f));
  return s.stopped ? raw.substr(0, s.keep) : raw;
}

std::string rule(const std::string& lang, const std::string& doc, const std::string& raw) {
  CursorFacts f = facts_at(lang, doc);
  return find_stop(raw, f, decide_mode(f)).rule;
}

}  // namespace

TEST_CASE("stop rules: mode from the cursor's line and token", "[stop_rules]") {
  CHECK(decide_mode(facts_at("python", "x = f(|)\n")) == Mode::kSingleLine);      // text after the cursor
  CHECK(decide_mode(facts_at("python", "def f(x):|\n")) == Mode::kMultiLine);     // end of line
  CHECK(decide_mode(facts_at("python", "def f(x):\n    |\n")) == Mode::kMultiLine);  // blank line
  CHECK(decide_mode(facts_at("python", "x = 1  # note|\n")) == Mode::kSingleLine);  // comment
  CHECK(decide_mode(facts_at("c", "const char* s = \"ab|\n")) == Mode::kSingleLine);   // string
  CHECK(decide_mode(facts_at("rust", "fn f() {|   \n}\n")) == Mode::kMultiLine);  // trailing blanks only
}

TEST_CASE("stop rules: single line ends at the first line break", "[stop_rules]") {
  CHECK(cut("python", "x = f(|)\n", "a, b)\ny = 2") == "a, b)");
  CHECK(cut("python", "x = f(|)\n", "\ny") == "");
  CHECK(rule("python", "x = f(|)\n", "a\nb") == "single_line");
}

TEST_CASE("stop rules: python blocks end by dedent and at blank lines", "[stop_rules]") {
  const std::string doc = "def f(x):|\n\ndef h():\n    pass\n";
  CHECK(cut("python", doc, "\n    y = x + 1\n    return y\n\ndef g():\n    pass") == "\n    y = x + 1\n    return y");
  CHECK(rule("python", doc, "\n    y = x + 1\n    return y\n\ndef g():") == "blank_line");
  CHECK(cut("python", doc, "\n    return x\ndef g():") == "\n    return x");
  CHECK(rule("python", doc, "\n    return x\ndef g():") == "block_closed");
  // Inside a body: a line that dedents below the cursor's block ends it.
  const std::string body = "class A:\n    def f(self):\n        |\n";
  CHECK(cut("python", body, "x = 1\n        return x\n    def g(self):") == "x = 1\n        return x");
  CHECK(rule("python", body, "x = 1\n        return x\n    def g(self):") == "indent_drop");
  // Still growing: no decision yet.
  CursorFacts f = facts_at("python", body);
  CHECK_FALSE(find_stop("x = 1\n        ret", f, Mode::kMultiLine).stopped);
  CHECK_FALSE(find_stop("x = 1\n", f, Mode::kMultiLine).stopped);
  CHECK_FALSE(find_stop("x = 1\n    ", f, Mode::kMultiLine).stopped);
}

TEST_CASE("stop rules: brace blocks end at their closing line", "[stop_rules]") {
  // The suffix has no closing brace: keep the one the model writes, stop after it.
  CHECK(cut("javascript", "function f(a) {|", "\n  return a + 1;\n}\nfunction g() {}") ==
        "\n  return a + 1;\n}");
  // The suffix already closes the block: stop before the model's closing line.
  const std::string closed = "function f(a) {|\n}\n";
  CHECK(cut("javascript", closed, "\n  return a + 1;\n}\n") == "\n  return a + 1;");
  CHECK(rule("javascript", closed, "\n  return a + 1;\n}\n") == "suffix_closes");
  CHECK(cut("c", "int f(int a) {|\n}\n", "\n  return a;\n}") == "\n  return a;");
  CHECK(cut("go", "package m\nfunc f() int {|\n}\n", "\n\treturn 1\n}\n") == "\n\treturn 1");
  CHECK(cut("rust", "fn f() -> i32 {|\n}\n", "\n    1\n}\nfn g() {}") == "\n    1");
  CHECK(cut("java", "class A {\n  int f() {|\n  }\n}\n", "\n    return 1;\n  }\n}") == "\n    return 1;");
}

TEST_CASE("stop rules: an unmatched closing bracket the suffix provides ends the suggestion", "[stop_rules]") {
  const std::string call = "result = compute(|\n)\n";
  CHECK(cut("python", call, "a, b)\nprint(result)") == "a, b");
  CHECK(rule("python", call, "a, b)") == "unmatched_bracket");
  // Brackets opened and closed inside the suggestion are fine; so are those in strings.
  CHECK(cut("python", call, "f(a), \")\", b") == "f(a), \")\", b");
  // Without the bracket in the suffix, the model's closer stays.
  CHECK(cut("python", "result = compute(|\n", "a, b)") == "a, b)");
}

TEST_CASE("stop rules: indentation width", "[stop_rules]") {
  CHECK(indent_width("    x") == 4);
  CHECK(indent_width("\t\tx") == 8);
  CHECK(indent_width("x") == 0);
  CHECK(indent_width("  ") == 2);
}
