// Prompt lookup: drafts come from the latest earlier occurrence of the last n-gram, and the
// draft length adapts to acceptance.
#include <catch2/catch.hpp>

#include "engine/decode/speculation/prompt_lookup.h"

using namespace wafer;

TEST_CASE("prompt lookup: drafts continue the latest match of the longest n-gram", "[speculative]") {
  PromptLookup p(DraftParams{8, 3, 2});
  REQUIRE(p.draft_length() == 4);
  // ... 1 2 3 [4 5 6 7] ... 1 2 3 [9 9] ... 1 2 3  -> the latest match wins.
  const std::vector<int32_t> h{1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 9, 9, 0, 1, 2, 3};
  CHECK(p.propose(h, 100) == std::vector<int32_t>{9, 9, 0, 1});
  CHECK(p.propose(h, 2) == std::vector<int32_t>{9, 9});
  CHECK(p.propose(h, 0).empty());
  // Only a 2-gram matches.
  const std::vector<int32_t> h2{5, 6, 7, 8, 9, 6, 7};
  CHECK(p.propose(h2, 100) == std::vector<int32_t>{8, 9, 6, 7});
  // Nothing matches, or the match is too short to be trusted.
  CHECK(p.propose(std::vector<int32_t>{1, 2, 3, 4}, 100).empty());
  CHECK(p.propose(std::vector<int32_t>{7, 1, 7}, 100).empty());
}

TEST_CASE("prompt lookup: the draft length follows acceptance", "[speculative]") {
  PromptLookup p(DraftParams{8, 3, 2});
  p.record(4, 4);
  CHECK(p.draft_length() == 6);
  p.record(6, 6);
  p.record(8, 8);
  CHECK(p.draft_length() == 8);  // capped
  p.record(8, 5);
  CHECK(p.draft_length() == 8);  // mostly accepted: unchanged
  p.record(8, 1);
  CHECK(p.draft_length() == 4);
  p.record(4, 0);
  p.record(2, 0);
  p.record(1, 0);
  CHECK(p.draft_length() == 1);  // never below one
  PromptLookup off(DraftParams{0, 3, 2});
  CHECK(off.propose(std::vector<int32_t>{1, 2, 1, 2}, 10).empty());
}
