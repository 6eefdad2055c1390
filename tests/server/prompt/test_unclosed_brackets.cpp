// The unclosed-brackets filter: a bracket the suggestion opens must be closed by the
// suggestion or by the text after the cursor.
#include <catch2/catch.hpp>

#include "server/prompt/unclosed_brackets.h"
#include "tests/server/context_fixture.h"

using namespace wafer;
using wafer::test::facts_at;

TEST_CASE("unclosed brackets: a dangling call is cut before its bracket", "[filters][unclosed_brackets]") {
  CursorFacts f = facts_at("python", "def f(x):\n    return |\n");
  CHECK(cut_unclosed_brackets("self._addrinfo(", f) == "self._addrinfo");
  CHECK(cut_unclosed_brackets("g(x) + h(y", f) == "g(x) + h");
  CHECK(cut_unclosed_brackets("g(x)", f) == "g(x)");
}

TEST_CASE("unclosed brackets: a multi-line suggestion keeps its whole lines", "[filters][unclosed_brackets]") {
  CursorFacts f = facts_at("python", "def f(x):\n    |\n");
  CHECK(cut_unclosed_brackets("y = x + 1\n    return g(y,\n             z", f) == "y = x + 1");
  CHECK(cut_unclosed_brackets("return g(y,\n             z)", f) == "return g(y,\n             z)");
}

TEST_CASE("unclosed brackets: the suffix closes them", "[filters][unclosed_brackets]") {
  // Typed inside a call whose closing bracket is already there.
  CursorFacts f = facts_at("c", "int main() {\n  printf(|);\n}\n");
  CHECK(cut_unclosed_brackets("\"%d\\n\", count(items", f) == "\"%d\\n\", count(items");
  // The suffix's own brackets are matched first.
  CursorFacts g = facts_at("python", "x = [|\n    f(a),\n]\n");
  CHECK(cut_unclosed_brackets("(1, 2", g) == "");
  CHECK(cut_unclosed_brackets("1, 2", g) == "1, 2");
}

TEST_CASE("unclosed brackets: quotes, comments and strings", "[filters][unclosed_brackets]") {
  CursorFacts f = facts_at("python", "def f(x):\n    return |\n");
  CHECK(cut_unclosed_brackets("\"(\" + x", f) == "\"(\" + x");
  CursorFacts c = facts_at("python", "# see |\n");
  CHECK(cut_unclosed_brackets("f(x", c) == "f(x");
}
