#include "server/benchtool/line_baseline.h"

#include <catch2/catch.hpp>

using wafer::nearest_line_baseline;

TEST_CASE("line baseline: the rest of the earlier line whose predecessor is most alike", "[benchtool][quality]") {
  const std::vector<std::string_view> lines = {
      "table = {",            // 0
      "    # letters",        // 1
      "    'a': 0x61,",       // 2
      "    # digits",         // 3
      "    '0': 0x30,",       // 4
      "    # letters",        // 5
      "    'b",               // 6: the cursor after 'b (col 6)
  };
  // Both earlier lines starting with "    '" continue; the one after "    # letters" wins.
  CHECK(nearest_line_baseline(lines, 6, 5) == "a': 0x61,");
  // What is typed must start the earlier line: nothing starts with "    'b".
  CHECK(nearest_line_baseline(lines, 6, 6).empty());
}

TEST_CASE("line baseline: ties go to the nearest line, and nothing above predicts nothing", "[benchtool][quality]") {
  const std::vector<std::string_view> lines = {"x", "f(1)", "x", "f(2)", "x", "f("};
  CHECK(nearest_line_baseline(lines, 5, 2) == "2)");
  CHECK(nearest_line_baseline(lines, 0, 0).empty());
  CHECK(nearest_line_baseline(lines, 9, 0).empty());  // past the end
  // A line that only repeats what is typed (or adds blanks) predicts nothing.
  const std::vector<std::string_view> blank = {"a", "ab  ", "a", "ab"};
  CHECK(nearest_line_baseline(blank, 3, 2).empty());
}
