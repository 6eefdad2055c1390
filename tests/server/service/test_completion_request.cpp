// The stop rule a completion request hands the engine: the stop rules, and a loop.
#include <catch2/catch.hpp>

#include <memory>

#include "server/service/completion_request.h"
#include "tests/server/context_fixture.h"

using namespace wafer;
using wafer::test::facts_at;

TEST_CASE("completion request: the engine stops at a loop and at the stop rules", "[completion_request]") {
  auto facts = std::make_shared<const CursorFacts>(facts_at("python", "def f(self):\n    x = self.|\n"));
  const auto stop = completion_stop_rule(facts, decide_mode(*facts));
  CHECK_FALSE(stop("_addrinfo(addrinfo("));
  CHECK(stop("_addrinfo(addrinfo(addrinfo(addrinfo("));
  CHECK_FALSE(stop("value"));
  // Single-line mode stops at the end of the line.
  auto inside = std::make_shared<const CursorFacts>(facts_at("python", "x = f(|)\n"));
  CHECK(completion_stop_rule(inside, Mode::kSingleLine)("a, b\nc"));
}
