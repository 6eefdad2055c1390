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

TEST_CASE("latency budget: the request after its own prefill-only run keeps that run's cut and prefills nothing",
          "[engine]") {
  EngineOptions o;
  o.max_draft = 0;
  test::EngineFixture f(o);
  const Tokenizer& tok = f.engine->tokenizer();
  std::string prefix;
  for (int i = 0; i < 12; ++i) prefix += "total_" + std::to_string(i) + " = total_" + std::to_string(i) + " + 1\n";
  prefix += "def f(x):\n    y = ";
  std::string suffix = "\n";
  for (int i = 0; i < 30; ++i) suffix += "    value_" + std::to_string(i) + " = compute(" + std::to_string(i) + ")\n";
  std::vector<TokenId> suffix_ids;
  tok.encode(suffix, EncodeOptions{}, suffix_ids);
  // 1 ms per prefilled token, decoding free: a budget of B ms prefills B tokens.
  ForwardCosts costs;
  Timings t;
  t.tokens_prefilled = 100;
  t.prefill_ms = 100;
  t.tokens_generated = 10;
  t.decode_ms = 1e-6;
  costs.observe(t);
  f.engine->set_forward_costs(costs);
  // More than the remainder once the prefix is cached would fit, less than the whole prompt:
  // judged afresh, the second request would keep more suffix than the first and prefill it.
  CompletionRequest early = test::request("doc", prefix, suffix, 6);
  early.first_token_budget_ms = 0.6 * static_cast<double>(suffix_ids.size());
  early.prefill_only = true;
  const test::Recorded first = f.run(early);
  REQUIRE(first.last().timings.budget_cut_tokens > 0);

  CompletionRequest real = early;
  real.prefill_only = false;
  const test::Recorded second = f.run(real);
  CHECK(second.last().timings.budget_cut_tokens == first.last().timings.budget_cut_tokens);
  CHECK(second.last().timings.tokens_prefilled == 0);  // the prompt and its logits are cached
  CHECK(second.last().timings.tokens_generated > 0);

  // The answer is the one a fresh engine gives the same request: the same cut (its cache is
  // as empty as the first run's), everything prefilled from scratch.
  test::EngineFixture fresh(o);
  fresh.engine->set_forward_costs(costs);
  const test::Recorded ref = fresh.run(real);
  CHECK(ref.last().timings.budget_cut_tokens == first.last().timings.budget_cut_tokens);
  CHECK(ref.last().timings.tokens_prefilled > 0);
  CHECK(second.last().text == ref.last().text);
}
