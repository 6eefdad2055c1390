// The first-token latency budget: measured costs, and where the suffix is cut.
#include "engine/decode/latency_budget.h"

#include <catch2/catch.hpp>

#include "tests/engine/engine_fixture.h"

using namespace wafer;

TEST_CASE("latency budget: costs are moving averages of real runs") {
  ForwardCosts c;
  CHECK_FALSE(c.known());
  CHECK(c.prefill_within(300) == -1);
  Timings t;
  t.tokens_prefilled = 100;
  t.prefill_ms = 200;  // 2 ms per token
  t.tokens_generated = 10;
  t.decode_ms = 200;   // 20 ms per token
  c.observe(t);
  CHECK(c.known());
  CHECK(c.prefill_within(300) == 140);  // (300 - 20) / 2
  CHECK(c.prefill_within(10) == 0);     // not even the decode step fits
  Timings small;  // too few tokens to say anything; a cancelled run neither
  small.tokens_prefilled = 3;
  small.prefill_ms = 300;
  c.observe(small);
  Timings cancelled = t;
  cancelled.prefill_ms = 10000;
  cancelled.cancelled = true;
  c.observe(cancelled);
  CHECK(c.prefill_within(300) == 140);
  Timings slower = t;
  slower.prefill_ms = 400;  // 4 ms per token: the average moves 30 % of the way
  c.observe(slower);
  CHECK(c.prefill_within(300) == Approx(280 / 2.6).epsilon(0.01));
}

TEST_CASE("latency budget: the suffix is cut at a line end, never inside its first line") {
  test::EngineFixture f;
  const Tokenizer& tok = f.engine->tokenizer();
  const std::string suffix = ")\n    return y\n\nprint(f(2))\n";
  std::vector<TokenId> ids;
  tok.encode(suffix, EncodeOptions{}, ids);
  CHECK(suffix_bytes_within(suffix, ids, ids.size(), tok) == suffix.size());
  CHECK(suffix_bytes_within(suffix, ids, 0, tok) == 2);  // ")\n": the cursor line's rest stays
  // Keeping tokens up to somewhere inside "print(...)" keeps the lines before it.
  size_t bytes = 0, keep = 0;
  while (keep < ids.size() && bytes < suffix.find("print") + 2) bytes += tok.token_bytes(ids[keep++]).size();
  CHECK(suffix_bytes_within(suffix, ids, keep, tok) == suffix.find("print"));
  CHECK(suffix_bytes_within("no newline at all", ids, 0, tok) == std::string("no newline at all").size());
}

TEST_CASE("latency budget: over budget the suffix is cut, and the answer is the shorter prompt's, exactly",
          "[engine]") {
  EngineOptions o;
  o.max_draft = 0;
  test::EngineFixture f(o);
  std::string suffix = "\n";
  for (int i = 0; i < 40; ++i) suffix += "    value_" + std::to_string(i) + " = compute(" + std::to_string(i) + ")\n";
  const std::string prefix = "def f(x):\n    y = ";
  // No budget: nothing cut, and the engine learns what a prefill costs.
  const test::Recorded measured = f.run(test::request("other", "import os\n" + prefix, suffix, 4));
  REQUIRE(measured.last().timings.tokens_prefilled >= 16);
  CHECK(measured.last().timings.budget_cut_tokens == 0);

  CompletionRequest r = test::request("doc", prefix, suffix, 6);
  r.first_token_budget_ms = 1e-3;  // nothing fits: the suffix keeps its first line
  const test::Recorded cut = f.run(r);
  CHECK(cut.last().timings.budget_cut_tokens > 0);

  EngineOptions fresh_options = o;
  test::EngineFixture fresh(fresh_options);
  const test::Recorded ref = fresh.run(test::request("doc", prefix, "\n", 6));
  CHECK(ref.last().timings.budget_cut_tokens == 0);
  CHECK(cut.last().text == ref.last().text);
  CHECK(cut.last().timings.tokens_prefilled == ref.last().timings.tokens_prefilled);

  CompletionRequest roomy = r;
  roomy.session_key = "roomy";
  roomy.first_token_budget_ms = 1e9;
  CHECK(f.run(roomy).last().timings.budget_cut_tokens == 0);
}
