// The LSP results made from a suggestion.
#include <catch2/catch.hpp>

#include "server/lsp/completion_result.h"

using namespace wafer;

TEST_CASE("completion: inline result inserts at the cursor on its line", "[completion]") {
  auto list = inline_completion_result("(n - 1)", {3, 8});
  REQUIRE(list.items.size() == 1);
  CHECK(list.items[0].insert_text == "(n - 1)");
  CHECK(list.items[0].range.start == lsp::Position{3, 8});
  CHECK(list.items[0].range.end == lsp::Position{3, 8});
  CHECK(inline_completion_result("", {0, 0}).items.empty());
}

TEST_CASE("completion: fallback item labels the first line and edits at the cursor", "[completion]") {
  auto list = completion_result("x + 1\n    return y", {1, 4});
  REQUIRE(list.items.size() == 1);
  CHECK(list.items[0].label == "x + 1");
  CHECK(list.items[0].text_edit.new_text == "x + 1\n    return y");
  CHECK(list.items[0].text_edit.range.start == lsp::Position{1, 4});
  CHECK(list.is_incomplete);
  CHECK(completion_result("", {0, 0}).items.empty());
}
