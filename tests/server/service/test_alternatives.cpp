// The alternatives' requests (sampled, seeded by index, otherwise the greedy request) and
// the set of suggestions (distinct after trimming, never blank, in order).
#include <catch2/catch.hpp>

#include "server/service/alternatives.h"

using namespace wafer;

TEST_CASE("alternatives: each sampled request is the greedy one with its own seed", "[alternatives]") {
  CompletionRequest greedy;
  greedy.session_key = "file:///a.py";
  greedy.prefix = "def f(";
  greedy.suffix = ")\n";
  greedy.max_tokens = 32;
  greedy.cancel = std::make_shared<std::atomic<bool>>(true);
  CompletionRequest a = alternative_request(greedy, 2, 0.8, 0.9);
  CHECK(a.session_key == greedy.session_key);  // the same KV cache: the prompt is reused
  CHECK(a.prefix == greedy.prefix);
  CHECK(a.suffix == greedy.suffix);
  CHECK(a.max_tokens == 32);
  CHECK(a.temperature == Approx(0.8));
  CHECK(a.top_p == Approx(0.9));
  CHECK(a.seed == 2);
  CHECK(a.cancel == nullptr);
  CHECK(alternative_request(greedy, 3, 0.8, 0.9).seed == 3);
  CHECK(greedy.temperature == 0);
}

TEST_CASE("alternatives: the set keeps distinct non-blank suggestions in order", "[alternatives]") {
  SuggestionSet s;
  CHECK(s.add("x + 1"));
  CHECK_FALSE(s.add(""));
  CHECK_FALSE(s.add(" \n\t"));
  CHECK_FALSE(s.add("x + 1  "));   // equal after trimming
  CHECK_FALSE(s.add("\nx + 1"));
  CHECK(s.add("x + 2"));
  CHECK(s.add("x+1"));             // inner whitespace differs: another suggestion
  CHECK(s.texts() == std::vector<std::string>{"x + 1", "x + 2", "x+1"});
  CHECK(s.size() == 3);
}
