// Documents: positions in UTF-16 and UTF-8 (ASCII, CJK, emoji), incremental and full
// changes, several changes per notification, and validation errors.
#include <catch2/catch.hpp>

#include "server/document/documents.h"

using namespace wafer;
using Position = TextPosition;

namespace {

TextChange edit(int64_t l0, int64_t c0, int64_t l1, int64_t c1, std::string text) {
  return {TextRange{{l0, c0}, {l1, c1}}, std::move(text)};
}

DocumentStore store_with(const std::string& text) {
  DocumentStore s;
  REQUIRE(s.open({"file:///t.py", "python", 1, text}));
  return s;
}

}  // namespace

TEST_CASE("documents: line starts for LF, CRLF and CR", "[documents]") {
  auto s = make_snapshot("u", "python", 1, "a\nbb\r\nccc\rd");
  CHECK(s->line_count() == 4);
  CHECK(s->line(1) == "bb");
  CHECK(s->line(2) == "ccc");
  CHECK(s->line(3) == "d");
}

TEST_CASE("documents: UTF-16 positions with CJK and emoji", "[documents]") {
  // "中" is 3 bytes / 1 unit, "😀" is 4 bytes / 2 units.
  auto s = make_snapshot("u", "python", 1, "x = '中😀!'\n");
  auto at = [&](int64_t c) { return offset_at(*s, {0, c}, PositionEncoding::kUtf16); };
  CHECK(*at(5) == 5);    // before 中
  CHECK(*at(6) == 8);    // after 中
  CHECK(*at(8) == 12);   // after 😀
  CHECK_FALSE(at(7));    // inside the surrogate pair
  CHECK(at(7).error().message.find("surrogate pair") != std::string::npos);
  CHECK(*at(100) == 14);  // past the line end: clamped to it
  CHECK(position_at(*s, 12, PositionEncoding::kUtf16) == Position{0, 8});
  CHECK(position_at(*s, 12, PositionEncoding::kUtf8) == Position{0, 12});
}

TEST_CASE("documents: UTF-8 positions reject the middle of a sequence", "[documents]") {
  auto s = make_snapshot("u", "python", 1, "中😀\n");
  CHECK(*offset_at(*s, {0, 3}, PositionEncoding::kUtf8) == 3);
  CHECK_FALSE(offset_at(*s, {0, 1}, PositionEncoding::kUtf8));
  CHECK_FALSE(offset_at(*s, {0, 5}, PositionEncoding::kUtf8));
  CHECK(*offset_at(*s, {0, 7}, PositionEncoding::kUtf8) == 7);
}

TEST_CASE("documents: lines past the end are errors / except the end-of-document position", "[documents]") {
  auto s = make_snapshot("u", "python", 1, "a\nb\n");  // 3 lines: "a", "b", ""
  CHECK(*offset_at(*s, {2, 0}, PositionEncoding::kUtf16) == 4);
  CHECK(*offset_at(*s, {3, 0}, PositionEncoding::kUtf16) == 4);
  CHECK_FALSE(offset_at(*s, {3, 1}, PositionEncoding::kUtf16));
  CHECK_FALSE(offset_at(*s, {40, 0}, PositionEncoding::kUtf16));
}

TEST_CASE("documents: incremental edits in UTF-16 with emoji and CJK", "[documents]") {
  DocumentStore docs = store_with("print('😀')\n名前 = 1\n");
  // Replace the emoji (units 7..9) with CJK, then insert at the start of line 1.
  auto r = docs.change("file:///t.py", 2,
                       {edit(0, 7, 0, 9, "中文"), edit(1, 0, 1, 0, "# "), edit(1, 4, 1, 4, "x")},
                       PositionEncoding::kUtf16);
  REQUIRE(r);
  CHECK(r->snapshot->text == "print('中文')\n# 名前x = 1\n");
  CHECK(r->snapshot->version == 2);
  CHECK(r->edits.size() == 3);
  CHECK(docs.get("file:///t.py")->text == r->snapshot->text);
}

TEST_CASE("documents: edits in UTF-8 byte columns", "[documents]") {
  DocumentStore docs = store_with("é = 1\n");
  auto r = docs.change("file:///t.py", 2, {edit(0, 2, 0, 2, "x")}, PositionEncoding::kUtf8);
  REQUIRE(r);
  CHECK(r->snapshot->text == "éx = 1\n");
}

TEST_CASE("documents: a full-text change replaces everything", "[documents]") {
  DocumentStore docs = store_with("old");
  auto r = docs.change("file:///t.py", 5, {{std::nullopt, "new\ntext"}}, PositionEncoding::kUtf16);
  REQUIRE(r);
  CHECK(r->full_text);
  CHECK(docs.get("file:///t.py")->text == "new\ntext");
  CHECK(docs.get("file:///t.py")->version == 5);
}

TEST_CASE("documents: a bad change is refused as a whole", "[documents]") {
  DocumentStore docs = store_with("a😀b\n");
  auto inside = docs.change("file:///t.py", 2, {edit(0, 0, 0, 0, "x"), edit(0, 3, 0, 3, "y")}, PositionEncoding::kUtf16);
  REQUIRE_FALSE(inside);
  CHECK(inside.error().message.find("contentChanges[1].range.start") != std::string::npos);
  auto reversed = docs.change("file:///t.py", 2, {edit(0, 3, 0, 1, "")}, PositionEncoding::kUtf16);
  REQUIRE_FALSE(reversed);
  CHECK(reversed.error().message.find("end precedes start") != std::string::npos);
  auto past = docs.change("file:///t.py", 2, {edit(9, 0, 9, 1, "")}, PositionEncoding::kUtf16);
  REQUIRE_FALSE(past);
  CHECK(docs.get("file:///t.py")->text == "a😀b\n");
  CHECK(docs.get("file:///t.py")->version == 1);
  CHECK_FALSE(docs.change("file:///nope.py", 2, {}, PositionEncoding::kUtf16));
}

TEST_CASE("documents: invalid UTF-8 in text never breaks positions", "[documents]") {
  DocumentStore docs = store_with("a\xFF\xFE" "b\n");
  auto s = docs.get("file:///t.py");
  CHECK(*offset_at(*s, {0, 3}, PositionEncoding::kUtf16) == 3);  // each bad byte is one unit
  auto r = docs.change("file:///t.py", 2, {edit(0, 1, 0, 3, "")}, PositionEncoding::kUtf16);
  REQUIRE(r);
  CHECK(r->snapshot->text == "ab\n");
}

TEST_CASE("documents: snapshots are immutable and outlive changes", "[documents]") {
  DocumentStore docs = store_with("v1");
  std::shared_ptr<const Snapshot> old = docs.get("file:///t.py");
  REQUIRE(docs.change("file:///t.py", 2, {edit(0, 2, 0, 2, "+")}, PositionEncoding::kUtf16));
  CHECK(old->text == "v1");
  CHECK(old->version == 1);
  CHECK(docs.get("file:///t.py")->text == "v1+");
  CHECK(docs.close("file:///t.py"));
  CHECK_FALSE(docs.close("file:///t.py"));
  CHECK(old->text == "v1");
}

TEST_CASE("documents: byte edits carry tree-sitter points", "[documents]") {
  DocumentStore docs = store_with("ab\ncd\n");
  auto r = docs.change("file:///t.py", 2, {edit(1, 1, 1, 1, "X\nY")}, PositionEncoding::kUtf16);
  REQUIRE(r);
  const ByteEdit& e = r->edits.at(0);
  CHECK(e.start == 4);
  CHECK(e.old_end == 4);
  CHECK(e.new_end == 7);
  CHECK(e.start_point.row == 1);
  CHECK(e.start_point.column == 1);
  CHECK(e.new_end_point.row == 2);
  CHECK(e.new_end_point.column == 1);
}

TEST_CASE("documents: the limits on open documents and their bytes", "[documents]") {
  DocumentStore docs;
  docs.set_limits({.max_documents = 2, .max_total_bytes = 10});
  REQUIRE(docs.open({"file:///a.py", "python", 1, "aaaa"}));
  REQUIRE(docs.open({"file:///b.py", "python", 1, "bbbb"}));
  CHECK(docs.total_bytes() == 8);

  Status third = docs.open({"file:///c.py", "python", 1, ""});
  REQUIRE(!third);
  CHECK(third.error().message.find("too many open documents: the limit is 2") != std::string::npos);
  CHECK(docs.get("file:///c.py") == nullptr);

  // A re-open replaces: it counts the new text instead of the old one.
  REQUIRE(docs.open({"file:///a.py", "python", 2, "aaaaaa"}));
  CHECK(docs.total_bytes() == 10);
  Status grown = docs.open({"file:///a.py", "python", 3, "aaaaaaa"});
  REQUIRE(!grown);
  CHECK(grown.error().message.find("more than the limit of 10") != std::string::npos);
  CHECK(docs.get("file:///a.py")->text == "aaaaaa");

  // A change past the limit leaves the document as it was.
  auto changed = docs.change("file:///b.py", 2, {edit(0, 0, 0, 0, "x")}, PositionEncoding::kUtf8);
  REQUIRE(!changed);
  CHECK(docs.get("file:///b.py")->text == "bbbb");
  CHECK(docs.get("file:///b.py")->version == 1);
  CHECK(docs.total_bytes() == 10);

  // Closing makes room.
  REQUIRE(docs.close("file:///a.py"));
  CHECK(docs.total_bytes() == 4);
  REQUIRE(docs.open({"file:///c.py", "python", 1, "cc"}));
  REQUIRE(docs.change("file:///b.py", 2, {edit(0, 0, 0, 0, "xy")}, PositionEncoding::kUtf8));
  CHECK(docs.total_bytes() == 8);
}
