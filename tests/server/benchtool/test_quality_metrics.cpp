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
