// The n-gram loop filter: a span three times in a row is cut after its first copy; data
// that repeats (lists of zeros, separators, indentation) is left alone.
#include <catch2/catch.hpp>

#include "server/prompt/ngram_loop.h"

using namespace wafer;

TEST_CASE("ngram loop: a call nested into itself is cut after the first copy", "[filters][ngram_loop]") {
  CHECK(cut_ngram_loop("self._addrinfo(addrinfo(addrinfo(addrinfo(addrinfo(") == "self._addrinfo(");
  const NgramLoop loop = find_ngram_loop("x = f(f(f(f(");
  REQUIRE(loop.found);
  CHECK(loop.begin == 4);
  CHECK(loop.period == 2);
}

TEST_CASE("ngram loop: a long span repeated over lines", "[filters][ngram_loop]") {
  CHECK(cut_ngram_loop("x += step;\nx += step;\nx += step;\nx +=") == "x += step;");
  CHECK(cut_ngram_loop("total = 0\nfor a in b:\n    total += a\n") == "total = 0\nfor a in b:\n    total += a\n");
}

TEST_CASE("ngram loop: data and two copies are not loops", "[filters][ngram_loop]") {
  CHECK_FALSE(find_ngram_loop("{0, 0, 0, 0, 0, 0, 0, 0}").found);
  CHECK_FALSE(find_ngram_loop("0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00").found);
  CHECK_FALSE(find_ngram_loop("# ======================").found);
  CHECK_FALSE(find_ngram_loop("\n\t\t\treturn 1;").found);
  CHECK_FALSE(find_ngram_loop("foo(foo(x))").found);  // two copies
  CHECK(cut_ngram_loop("") == "");
}

TEST_CASE("ngram loop: a short word repeated as a list is a loop from five copies", "[filters][ngram_loop]") {
  CHECK(cut_ngram_loop("ols.curdir\", \"w\", \"w\", \"w\", \"w\", \"w\", \"w\", \"w\", \"w\", \"") ==
        "ols.curdir\", \"w");  // up to the first copy of `", "w`
  CHECK(cut_ngram_loop("a, a, a, a, a, a") == "a,");
  CHECK_FALSE(find_ngram_loop("np.zeros((n, n, n))").found);       // three copies: a shape
  CHECK_FALSE(find_ngram_loop("(x, x, x, x)").found);               // four
  CHECK_FALSE(find_ngram_loop("0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff").found);  // numbers
  CHECK_FALSE(find_ngram_loop("\"\\x00\\x00\\x00\\x00\\x00\\x00\"").found);            // escapes
  CHECK_FALSE(find_ngram_loop("1e5, 1e5, 1e5, 1e5, 1e5, 1e5").found);
}

TEST_CASE("ngram loop: a short span repeated inside a name is a loop once it runs 24 bytes", "[filters][ngram_loop]") {
  CHECK(cut_ngram_loop("f (__cplusplusplusplusplusplusplusplusplusplus") == "f (__cplus");
  CHECK(cut_ngram_loop("OT_ID_ID_ID_ID_ID_ID_ID_ID_ID_ID_") == "OT_ID");
  CHECK(cut_ngram_loop("BOOL_BOOL_BOOL_BOOL_BOOL_BOOL_BOOL_BOOL") == "BOOL_");
  CHECK_FALSE(find_ngram_loop("__cplusplusplus").found);  // under 24 bytes
  CHECK_FALSE(find_ngram_loop("0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff").found);
}
