// CompletionText: stop strings cut the text and are never released, not even in part.
#include <catch2/catch.hpp>

#include "engine/decode/completion_text.h"

using namespace wafer;

TEST_CASE("completion text: without stop strings everything is released at once", "[completion_text]") {
  CompletionText t({});
  CHECK(t.push("ab") == "ab");
  CHECK(t.push("c") == "c");
  CHECK(t.finish().empty());
  CHECK(t.text() == "abc");
  CHECK_FALSE(t.stopped());
}

TEST_CASE("completion text: a possible stop string start is held back", "[completion_text]") {
  CompletionText t({"\n\n", "END"});
  CHECK(t.push("x = 1\n") == "x = 1");  // "\n" may start "\n\n"
  CHECK(t.push("y") == "\ny");           // it did not
  CHECK(t.push("E") == "");              // may start "END"
  CHECK(t.push("N") == "");
  CHECK(t.push("Dz") == "");             // it did: cut before it
  CHECK(t.stopped());
  CHECK(t.text() == "x = 1\ny");
  CHECK(t.push("more") == "");
  CHECK(t.finish().empty());
}

TEST_CASE("completion text: a stop string inside one push", "[completion_text]") {
  CompletionText t({"\n\n"});
  CHECK(t.push("a\n\nb") == "a");
  CHECK(t.stopped());
  CHECK(t.text() == "a");
}

TEST_CASE("completion text: the held tail is released at the end", "[completion_text]") {
  CompletionText t({"STOP", ""});
  CHECK(t.push("go ST") == "go ");
  CHECK(t.finish() == "ST");
  CHECK(t.text() == "go ST");
  CHECK_FALSE(t.stopped());
}
