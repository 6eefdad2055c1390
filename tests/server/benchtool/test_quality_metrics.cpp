// The scores of bench_quality: the first lexical token and edit similarity.
#include <catch2/catch.hpp>

#include "server/benchtool/quality_metrics.h"

using namespace wafer;

TEST_CASE("first_lexical_token takes an identifier run or one other character", "[benchtool]") {
  CHECK(first_lexical_token("  return value;") == "return");
  CHECK(first_lexical_token("x_1 = 2") == "x_1");
  CHECK(first_lexical_token("== other") == "=");
  CHECK(first_lexical_token("(a, b)") == "(");
  CHECK(first_lexical_token("\tcafé()") == "café");  // the UTF-8 bytes stay in the run
  CHECK(first_lexical_token(" \t\n").empty());
  CHECK(first_lexical_token("").empty());
}

TEST_CASE("edit_similarity is one minus the Levenshtein distance over the longer length", "[benchtool]") {
  CHECK(edit_similarity("", "") == 1.0);
  CHECK(edit_similarity("abc", "abc") == 1.0);
  CHECK(edit_similarity("abc", "") == 0.0);
  CHECK(edit_similarity("", "abcd") == 0.0);
  CHECK(edit_similarity("kitten", "sitting") == Approx(1.0 - 3.0 / 7.0));  // 2 substitutions + 1 insertion
  CHECK(edit_similarity("return x", "return y") == Approx(1.0 - 1.0 / 8.0));
  CHECK(edit_similarity("ab", "ba") == Approx(0.0));  // two substitutions over two bytes
  CHECK(edit_similarity("flaw", "lawn") == edit_similarity("lawn", "flaw"));  // symmetric
}

TEST_CASE("quality metrics: the gate's coverage and precision per threshold", "[quality_metrics]") {
  const std::vector<GatedPoint> points = {
      {0.9, true, true, 1.0}, {0.5, true, false, 0.5}, {0.1, true, false, 0.0}, {0.8, false, false, 0.0},
      {-1, true, true, 1.0}};
  const std::vector<GateRow> rows = gate_table(points, {0, 0.3, 0.95});
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].shown == 4);
  CHECK(rows[0].coverage == Approx(0.8));
  CHECK(rows[0].precision == Approx(0.5));
  CHECK(rows[1].shown == 3);
  CHECK(rows[1].precision == Approx(2.0 / 3));
  CHECK(rows[1].similarity == Approx(2.5 / 3));
  CHECK(rows[2].shown == 1);  // only the point without a confidence
  CHECK(gate_table({}, {0.5})[0].coverage == 0);
}
