// Generation with prompt-lookup speculation: greedy output must be token-for-token the
// output of plain decoding, on many prompts including repetitive ones, and drafts must
// actually be accepted sometimes (or the verification path is not exercised).
#include <catch2/catch.hpp>

#include "tests/engine/decode/speculation_prompts.h"
#include "tests/engine/engine_fixture.h"

using namespace wafer;
using test::request;

namespace {

std::vector<test::PromptPair> prompts() {
  std::vector<test::PromptPair> p = test::repetitive_prompts();
  for (int seed = 0; seed < 8; ++seed) {
    const std::string s = test::random_text(seed, 60, "ab \n(");
    p.push_back({s, s.substr(0, 10)});
  }
  return p;
}

}  // namespace

TEST_CASE("speculation: greedy output is identical with and without drafts", "[completion_run][speculative]") {
  for (const char* arch : {"llama", "qwen2"}) {
    SyntheticModelSpec spec;
    spec.architecture = arch;
    spec.seed = 7;
    test::EngineFixture f({}, spec);
    int accepted = 0, proposed = 0;
    for (const auto& [prefix, suffix] : prompts()) {
      INFO(arch << " prompt: " << prefix);
      f.engine->set_max_draft(0);
      test::Recorded plain = f.run(request("plain", prefix, suffix, 40));
      f.engine->set_max_draft(8);
      test::Recorded spec_run = f.run(request("spec", prefix, suffix, 40));
      REQUIRE(plain.last().kind == CompletionEvent::Kind::kDone);
      REQUIRE(spec_run.last().kind == CompletionEvent::Kind::kDone);
      CHECK(spec_run.last().text == plain.last().text);
      CHECK(spec_run.streamed == plain.streamed);
      CHECK(spec_run.last().stop == plain.last().stop);
      CHECK(spec_run.last().timings.tokens_generated == plain.last().timings.tokens_generated);
      CHECK(plain.last().timings.drafts_proposed == 0);
      // The first line's confidence: the same tokens chosen from the same rows, drafts or not.
      const Timings::Confidence& c = plain.last().timings.confidence;
      const Timings::Confidence& cs = spec_run.last().timings.confidence;
      CHECK((c.tokens > 0) == (plain.last().timings.tokens_generated > 0 && !plain.last().text.empty()));
      CHECK(cs.tokens == c.tokens);
      if (c.tokens > 0) {
        CHECK(c.mean_logprob <= 0);
        CHECK(c.min_logprob <= c.mean_logprob);
        CHECK(c.first_prob > 0);
        CHECK(c.first_prob <= 1);
        CHECK(cs.mean_logprob == Approx(c.mean_logprob).margin(1e-3));
      }
      accepted += spec_run.last().timings.drafts_accepted;
      proposed += spec_run.last().timings.drafts_proposed;
      CHECK(spec_run.last().timings.drafts_accepted <= spec_run.last().timings.drafts_proposed);
    }
    INFO(arch << ": " << accepted << " of " << proposed << " draft tokens accepted");
    CHECK(accepted > 0);
  }
}

TEST_CASE("speculation: sampling with a temperature is reproducible from the seed", "[completion_run]") {
  test::EngineFixture f;
  CompletionRequest r = request("a", "def main():\n    ", "\n", 16);
  r.temperature = 0.8f;
  r.seed = 42;
  test::Recorded one = f.run(r);
  r.session_key = "b";
  test::Recorded two = f.run(r);
  CHECK(one.last().text == two.last().text);
  CHECK(one.last().timings.drafts_proposed == 0);  // speculation is for greedy decoding only
}
