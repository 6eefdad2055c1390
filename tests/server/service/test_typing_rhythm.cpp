// The typing rhythm (server/service/typing_rhythm.h) and the first-token budget it gives an
// automatic request while the user types.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "server/lsp/stats_json.h"
#include "server/service/typing_rhythm.h"
#include "tests/server/lsp_fixture.h"

using namespace wafer;
using namespace wafer::test;
using ms = std::chrono::milliseconds;

TEST_CASE("typing rhythm: the median of the last gaps, pauses and the opening left out") {
  TypingRhythm r;
  const auto t0 = TypingRhythm::Clock::time_point{} + std::chrono::hours(1);
  CHECK_FALSE(r.seen());
  r.keystroke(t0, /*opening=*/true);
  CHECK(r.seen());
  CHECK(r.last() == t0);
  CHECK(r.typical_gap_ms() == 0.0);  // no gap yet
  auto t = t0 + ms(5000);            // the first keystroke, long after the opening: no gap
  r.keystroke(t);
  for (int gap : {300, 200}) r.keystroke(t += ms(gap));
  CHECK(r.typical_gap_ms() == 0.0);  // two gaps: too few to say
  r.keystroke(t += ms(250));
  CHECK(r.typical_gap_ms() == Approx(250));
  r.keystroke(t += ms(4000));  // a pause is not part of the rhythm
  CHECK(r.typical_gap_ms() == Approx(250));
  CHECK(r.last() == t);
  // Only the last 8 gaps count: after 8 quick keystrokes the slow ones are forgotten.
  for (int i = 0; i < 8; ++i) r.keystroke(t += ms(100));
  CHECK(r.typical_gap_ms() == Approx(100));
}

TEST_CASE("typing budget: half the typical gap, within the floor and the setting") {
  CHECK(typing_budget_ms(300, 0) == 300);      // rhythm unknown: the setting
  CHECK(typing_budget_ms(300, 240) == 120);    // 50 wpm: half the gap
  CHECK(typing_budget_ms(300, 1000) == 300);   // slow typing: never above the setting
  CHECK(typing_budget_ms(300, 90) == kTypingBudgetFloorMs);
  CHECK(typing_budget_ms(60, 90) == 60);       // a setting below the floor stays
  CHECK(typing_budget_ms(0, 240) == 0);        // 0: no budget at all
}

TEST_CASE("typing budget: automatic requests while typing get it, invoked ones and typingBudget off do not") {
  auto run = [](bool typing_budget, int trigger_kind) {
    Options o;
    o.debounce_ms = 0;
    o.typing_budget = typing_budget;
    LspFixture f(nlohmann::json{{"text", "x"}}, o);
    f.open(kPriceUri, kPriceText);
    for (int i = 0; i < 5; ++i) {  // keystrokes ~20 ms apart: the budget is its floor
      std::this_thread::sleep_for(ms(20));
      f.insert(kPriceUri, 1, 11 + i, "a");
    }
    f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 16, trigger_kind));
    return stats_json(f.server().stats())["latency_ms"].value("typing_budget_ms", nlohmann::json::object());
  };
  const nlohmann::json typing = run(true, 2);
  REQUIRE(typing.value("count", 0) == 1);
  CHECK(typing["p50"].get<double>() == kTypingBudgetFloorMs);
  CHECK(run(true, 1).value("count", 0) == 0);   // invoked: no budget at all
  CHECK(run(false, 2).value("count", 0) == 0);  // off: the setting alone
}
