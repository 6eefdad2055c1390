// The ring of recently edited places (server/prompt/recent_chunks.h).
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>

#include "server/prompt/recent_chunks.h"

using namespace wafer;

namespace {

// Documents of numbered lines ("a0", "a1", ...) the ring reads when a region closes.
struct Docs {
  std::map<std::string, std::shared_ptr<const Snapshot>> by_uri;
  const Snapshot& put(const std::string& uri, const std::string& stem, int lines) {
    std::string text;
    for (int i = 0; i < lines; ++i) text += stem + std::to_string(i) + "\n";
    by_uri[uri] = make_snapshot(uri, "python", 1, text);
    return *by_uri[uri];
  }
};

std::string path_of(const std::string& uri) { return uri.substr(uri.rfind('/') + 1); }

}  // namespace

TEST_CASE("recent chunks: a place joins the ring when the user edits elsewhere") {
  Docs docs;
  RecentChunks ring;
  ring.set_snapshot_of([&](const std::string& uri) -> std::shared_ptr<const Snapshot> {
    auto it = docs.by_uri.find(uri);
    return it == docs.by_uri.end() ? nullptr : it->second;
  });
  const Snapshot& a = docs.put("file:///w/a.py", "a", 200);
  const Snapshot& b = docs.put("file:///w/b.py", "b", 50);
  ring.edited(a, 100);
  ring.edited(a, 103);  // near: the same place
  ring.edited(a, 110);
  CHECK(ring.chunks().empty());
  CHECK(ring.generation() == 0);
  ring.edited(b, 10);  // another document: a's place is closed
  REQUIRE(ring.chunks().size() == 1);
  CHECK(ring.generation() == 1);
  // Lines 96..114 of a: the edited lines and 4 around them.
  const std::string& text = ring.chunks()[0].text;
  CHECK(text.rfind("a96\n", 0) == 0);
  CHECK(text.find("a114\n") != std::string::npos);
  CHECK(text.find("a95\n") == std::string::npos);
  CHECK(text.find("a115\n") == std::string::npos);
  ring.edited(b, 40);  // 30 lines away in b: b's first place closes too
  REQUIRE(ring.chunks().size() == 2);
  ring.edited(a, 105);  // back in a's first place: its chunk moves to the end, not twice
  ring.edited(b, 0);
  REQUIRE(ring.chunks().size() == 3);
  CHECK(ring.chunks()[0].uri == "file:///w/b.py");
  CHECK(ring.chunks()[1].uri == "file:///w/b.py");
  CHECK(ring.chunks()[2].uri == "file:///w/a.py");

  SECTION("the prompt shows them oldest first, not those the window shows, within the budget") {
    auto all = ring.for_prompt("", 10000, path_of);
    REQUIRE(all.size() == 3);
    CHECK(all[0].path == "b.py");
    CHECK(all[2].path == "a.py");
    CHECK(std::string(all[2].source) == "recent");
    // A window that shows a's chunk leaves it out.
    auto without_a = ring.for_prompt(std::string("x\n") + ring.chunks()[2].text + "y\n", 10000, path_of);
    REQUIRE(without_a.size() == 2);
    CHECK(without_a[1].path == "b.py");
    // A small budget keeps the newest that fit.
    auto newest = ring.for_prompt("", 60, path_of);
    REQUIRE(newest.size() == 1);
    CHECK(newest[0].path == "a.py");
    CHECK(ring.for_prompt("", 0, path_of).empty());
  }
  SECTION("a place too long in bytes (a 1 MB line) does not join") {
    docs.by_uri["file:///w/min.js"] = make_snapshot("file:///w/min.js", "javascript", 1, std::string(1 << 20, 'x') + "\n");
    ring.edited(*docs.by_uri["file:///w/min.js"], 0);
    const uint64_t g = ring.generation();
    ring.edited(b, 45);
    CHECK(ring.generation() == g);  // the edit in min.js closed b's place (4 chunks); min.js's own is left out
    REQUIRE(ring.chunks().size() == 4);
    for (const auto& c : ring.chunks()) CHECK(c.uri != "file:///w/min.js");
  }
  SECTION("at most 8 chunks; a closed document's place is dropped") {
    for (int i = 0; i < 12; ++i) ring.edited(a, static_cast<size_t>(i % 2 ? 10 : 150) + i);
    CHECK(ring.chunks().size() == RecentChunks::kMaxChunks);
    docs.by_uri.erase("file:///w/a.py");
    const uint64_t g = ring.generation();
    ring.edited(b, 45);
    CHECK(ring.generation() == g);  // a's open place could not be read: nothing joined
  }
}

TEST_CASE("recent chunks: yanked lines join the ring, once") {
  Docs docs;
  RecentChunks ring;
  const Snapshot& a = docs.put("file:///w/a.py", "a", 100);
  using Yank = RecentChunks::Yank;
  CHECK(ring.yanked_lines(a, 10, 12) == Yank::kAdded);
  REQUIRE(ring.chunks().size() == 1);
  CHECK(ring.chunks()[0].uri == "file:///w/a.py");
  CHECK(ring.chunks()[0].text == "a10\na11\na12\n");
  CHECK(ring.generation() == 1);

  SECTION("the same lines again, or lines a chunk holds, change nothing") {
    CHECK(ring.yanked_lines(a, 10, 12) == Yank::kAlreadyThere);
    CHECK(ring.yanked_lines(a, 11, 11) == Yank::kAlreadyThere);
    CHECK(ring.yanked_text("", "a11\n") == Yank::kAlreadyThere);
    CHECK(ring.chunks().size() == 1);
    CHECK(ring.generation() == 1);
  }
  SECTION("lines holding a chunk of the same document replace it") {
    CHECK(ring.yanked_lines(a, 9, 13) == Yank::kAdded);
    REQUIRE(ring.chunks().size() == 1);
    CHECK(ring.chunks()[0].text == "a9\na10\na11\na12\na13\n");
    CHECK(ring.generation() == 2);
  }
  SECTION("at most kMaxLines lines, from the first") {
    CHECK(ring.yanked_lines(a, 40, 99) == Yank::kAdded);
    const std::string& text = ring.chunks().back().text;
    CHECK(text.rfind("a40\n", 0) == 0);
    CHECK(text.find("a71\n") != std::string::npos);
    CHECK(text.find("a72\n") == std::string::npos);
  }
  SECTION("a range outside the document, whitespace and over kMaxBytes are left out") {
    CHECK(ring.yanked_lines(a, 99, 101) == Yank::kOutside);
    CHECK(ring.yanked_lines(a, 12, 10) == Yank::kOutside);
    CHECK(ring.yanked_text("", " \n\t\n") == Yank::kBlank);
    CHECK(ring.yanked_text("", "") == Yank::kBlank);
    CHECK(ring.yanked_text("", std::string(RecentChunks::kMaxBytes + 1, 'x')) == Yank::kTooLong);
    docs.by_uri["file:///w/blank.py"] = make_snapshot("file:///w/blank.py", "python", 1, "\n   \n\n");
    CHECK(ring.yanked_lines(*docs.by_uri["file:///w/blank.py"], 0, 2) == Yank::kBlank);
    CHECK(ring.chunks().size() == 1);
    CHECK(ring.generation() == 1);
  }
  SECTION("a text of its own ends in a newline; the ring keeps the newest kMaxChunks") {
    CHECK(ring.yanked_text("", "x = 1") == Yank::kAdded);
    CHECK(ring.chunks().back().text == "x = 1\n");
    CHECK(ring.chunks().back().uri.empty());
    for (int i = 0; i < 10; ++i) CHECK(ring.yanked_text("", "y" + std::to_string(i) + " = 2\n") == Yank::kAdded);
    CHECK(ring.chunks().size() == RecentChunks::kMaxChunks);
    CHECK(ring.chunks().back().text == "y9 = 2\n");
    CHECK(ring.generation() == 12);
  }
}
