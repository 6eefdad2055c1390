// The checks bench_quality makes of shown suggestions, apart from the filters.
#include <catch2/catch.hpp>

#include "server/benchtool/degenerate_text.h"

using namespace wafer;

TEST_CASE("degenerate text: a line of the prefix written twice", "[benchtool]") {
  const std::string before = "def add(a, b):\n    return a + b\n\nx = ";
  CHECK(repeats_prefix_line(before, "1\n    return a + b\n    return a + b\n"));
  CHECK(repeats_prefix_line(before, "1\nreturn a + b\n  return a + b  "));  // indentation aside
  CHECK_FALSE(repeats_prefix_line("#  endif\n# endif\n", "\n#  endif\n# endif"));  // nesting differs
  CHECK_FALSE(repeats_prefix_line(before, "1\n    return a + b\n"));         // once is fine
  CHECK_FALSE(repeats_prefix_line(before, "1\n}\n}\n}\n"));                 // short lines repeat in code
  CHECK_FALSE(repeats_prefix_line(before, "total\nsum = total\nsum = total"));  // its own line, not the prefix's
  // The first line continues the cursor's line: "x = add(a, b)" is not a line above.
  CHECK_FALSE(repeats_prefix_line("x = add(a, b)\ny = ", "add(a, b)\nz = 1"));
  CHECK(repeats_prefix_line("x = add(a, b)\n", "x = add(a, b)\nx = add(a, b)"));
}

TEST_CASE("degenerate text: a span looping three times", "[benchtool]") {
  CHECK(loops_span("self._addrinfo(addrinfo(addrinfo(addrinfo("));
  CHECK(loops_span("foo.bar(); foo.bar(); foo.bar(); "));
  CHECK_FALSE(loops_span("foo.bar(); foo.bar(); "));           // twice
  CHECK_FALSE(loops_span("[0, 0, 0, 0, 0, 0, 0, 0]"));         // data
  CHECK_FALSE(loops_span("\"a\", \"a\", \"a\", \"a\""));       // short list items
  CHECK_FALSE(loops_span("x = compute(value)"));
}

TEST_CASE("degenerate text: numbers and escapes repeat as data", "[benchtool]") {
  CHECK_FALSE(loops_span("0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff"));
  CHECK_FALSE(loops_span("\"\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\""));
  CHECK(loops_span("f (__cplusplusplusplusplusplusplusplusplusplus"));
}
