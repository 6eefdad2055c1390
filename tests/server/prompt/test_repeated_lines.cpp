// The repeated-lines filter: a line written a third time, or a line above the cursor
// written twice, is cut at its second copy.
#include <catch2/catch.hpp>

#include "server/prompt/repeated_lines.h"
#include "tests/server/context_fixture.h"

using namespace wafer;
using wafer::test::facts_at;

TEST_CASE("repeated lines: the first line and its copies", "[filters][repeated_lines]") {
  // The bundled model's answer in a new file: the line it is on, over and over.
  CursorFacts f = facts_at("python", "def add(a, b):\n    return |");
  CHECK(cut_repeated_lines(" a, b):\n    return a, b):\n    return a, b):", f) == " a, b):");
  // Two copies of a line of its own: ordinary code.
  CHECK(cut_repeated_lines("a + b\n\nprint(add(1, 2))\nprint(add(1, 2))", f) ==
        "a + b\n\nprint(add(1, 2))\nprint(add(1, 2))");
}

TEST_CASE("repeated lines: a line of the prefix written twice", "[filters][repeated_lines]") {
  CursorFacts f = facts_at("python", "import os\nimport sys\n|");
  CHECK(cut_repeated_lines("import re\nimport sys\nimport sys\nimport json", f) == "import re\nimport sys");
  // Once is a choice the model may make.
  CHECK(cut_repeated_lines("import re\nimport sys", f) == "import re\nimport sys");
}

TEST_CASE("repeated lines: short lines repeat in ordinary code", "[filters][repeated_lines]") {
  CursorFacts f = facts_at("c", "int f(int a) {\n  if (a) {\n    x();\n  }\n  |");
  const std::string text = "if (b) {\n    y();\n  }\n  if (c) {\n    z();\n  }\n  return 0;\n}";
  CHECK(cut_repeated_lines(text, f) == text);
}
