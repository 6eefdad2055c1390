// FIM windows around the cursor and the LSP results made from a suggestion.
#include <catch2/catch.hpp>

#include "server/completion.h"

using namespace wafer;

TEST_CASE("completion: prefix and suffix windows by lines", "[completion]") {
  auto s = make_snapshot("file:///a.py", "python", 1, "l0\nl1\nl2\ndef f(x):\n    ret\nl5\nl6\nl7\n");
  size_t cursor = *offset_at(*s, {4, 7}, lsp::PositionEncoding::kUtf16);
  FimWindow w;
  w.prefix_lines = 2;
  w.suffix_lines = 1;
  CompletionRequest r = build_fim_request(*s, cursor, w);
  CHECK(r.prefix == "l2\ndef f(x):\n    ret");
  CHECK(r.suffix == "\nl5\n");
  CHECK(r.session_key == "file:///a.py");
  w.prefix_lines = 100;
  w.suffix_lines = 100;
  r = build_fim_request(*s, cursor, w);
  CHECK(r.prefix == "l0\nl1\nl2\ndef f(x):\n    ret");
  CHECK(r.suffix == "\nl5\nl6\nl7\n");
}

TEST_CASE("completion: byte caps drop far lines first and never split UTF-8", "[completion]") {
  auto s = make_snapshot("u", "python", 1, "aaaaaaaaaa\nbbbbbbbbbb\n中中中中x\nyy\n");
  size_t cursor = s->line_starts[2] + 12;  // after the four 中
  FimWindow w;
  w.max_bytes = 20;
  CompletionRequest r = build_fim_request(*s, cursor, w);
  CHECK(r.prefix == "中中中中");  // the lines above do not fit with it
  w.max_bytes = 7;
  r = build_fim_request(*s, cursor, w);
  CHECK(r.prefix == "中中");  // cut inside the line, on a character boundary
  CHECK(r.suffix.size() <= 7);
  CHECK(r.suffix == "x\nyy\n");
}

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
