// bench_draft's set acceptance rate: drafted tokens are the model's own with probability p,
// so at p = 1 every drafted token must be accepted. That holds only when the reference is
// the output every measured run makes; a run that leaves it is flagged.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "bench/draft/synthetic_draft.h"
#include "engine/engine_local.h"
#include "tests/engine/decode/speculation_prompts.h"
#include "tests/engine/engine_fixture.h"
#include "tests/support/fixtures/synthetic_model.h"
#include "tests/support/testing.h"

using namespace wafer;
using bench::SyntheticDraft;

TEST_CASE(
    "synthetic draft: p = 1 drafts the reference, p < 0 records the output and drafts nothing",
    "[bench_draft]") {
  SyntheticDraft d;
  d.n_vocab = 100;
  std::vector<int32_t> draft(3, 7);
  d(std::vector<int32_t>{5, 6}, draft);
  CHECK(draft.empty());
  draft.assign(2, 7);
  d(std::vector<int32_t>{5, 6, 8, 9}, draft);
  CHECK(d.reference == std::vector<int32_t>{5, 6, 8, 9});

  d.p = 1;
  draft.assign(2, 0);
  d(std::vector<int32_t>{5, 6}, draft);
  CHECK(draft == std::vector<int32_t>{8, 9});
  CHECK_FALSE(d.off_reference);
  d.p = 0;
  draft.assign(2, 0);
  d(std::vector<int32_t>{5}, draft);
  CHECK(draft == std::vector<int32_t>{7, 9});
  CHECK_FALSE(d.off_reference);
  d(std::vector<int32_t>{5, 7}, draft);  // not the reference's second token
  CHECK(d.off_reference);
}

TEST_CASE("synthetic draft: at p = 1 every drafted token is accepted", "[bench_draft]") {
  test::TempDir dir;
  SyntheticModelSpec spec;
  spec.architecture = "qwen2";
  spec.n_vocab = 2000;
  spec.word_fillers = true;
  spec.weight_type = spec.embd_type = spec.output_type = TensorType::Q8_0;
  const auto target = dir / "target.gguf", draft = dir / "draft.gguf";
  spec.seed = 7;
  REQUIRE(write_synthetic_model(spec, target).ok());
  spec.seed = 99;
  spec.n_layer = 1;
  REQUIRE(write_synthetic_model(spec, draft).ok());
  EngineOptions o;
  o.model_path = target.string();
  o.draft_model_path = draft.string();
  o.threads = 2;
  o.context_length = 1024;
  o.prompt_lookup = false;
  o.copy_strength = 0;
  o.max_draft = 8;
  auto loaded = LocalEngine::load(o);
  REQUIRE(loaded.ok());
  LocalEngine& e = **loaded;
  auto synthetic = std::make_shared<SyntheticDraft>();
  synthetic->n_vocab = static_cast<int32_t>(e.tokenizer().n_vocab());
  e.set_draft_filter([synthetic](std::span<const int32_t> output, std::vector<int32_t>& d) {
    (*synthetic)(output, d);
  });
  // bench_draft's costs in place: every decode pass of the model, with the draft it verified.
  std::vector<DecodePass> passes;
  e.set_pass_observer([&passes](const DecodePass& pass) { passes.push_back(pass); });

  // Growing prefixes of one text under one session key, as bench_draft's cursors move:
  // each prompt is mostly new to the cache.
  std::string text;
  for (int seed = 0; seed < 12; ++seed) text += test::random_text(seed, 40, "abc xyz\n(=:.");
  int proposed = 0, accepted = 0, typical = 0;
  for (size_t n = 40; n <= text.size(); n += 40) {
    const CompletionRequest req = test::request("bench", text.substr(0, n), "\n", 16);
    INFO("prefix of " << n << " characters");
    REQUIRE(bench::record_reference(e, *synthetic, req, o.max_draft));
    synthetic->p = 1;
    synthetic->off_reference = false;
    passes.clear();
    test::Recorded r;
    e.complete(req, r.callback());
    REQUIRE(r.last().kind == CompletionEvent::Kind::kDone);
    const Timings& t = r.last().timings;
    int drafted = 0, by_model = 0;
    double draft_ms = 0;
    for (const DecodePass& pass : passes) {
      CHECK(pass.rows >= 1);
      CHECK(pass.ms > 0);
      drafted += pass.rows - 1;
      if (!pass.by_model) {
        CHECK_FALSE(pass.typical);
        continue;
      }
      typical += pass.typical ? 1 : 0;
      CHECK(pass.rows > 1);
      CHECK(pass.draft_ms > 0);
      by_model += pass.rows - 1;
      draft_ms += pass.draft_ms;
    }
    CHECK(drafted == t.drafts_proposed);
    CHECK(by_model == t.model_drafts_proposed);
    CHECK(draft_ms <= t.draft_ms + 1e-9);
    INFO("stop " << static_cast<int>(r.last().stop) << " after " << t.tokens_generated
                 << " tokens");
    CHECK_FALSE(synthetic->off_reference);
    // An end of generation is not in the reference (no output holds it), so a run that ends
    // there has its last draft rejected; the others must have every draft accepted.
    if (r.last().stop != StopReason::kMaxTokens) continue;
    CHECK(t.model_drafts_accepted == t.model_drafts_proposed);
    proposed += t.model_drafts_proposed;
    accepted += t.model_drafts_accepted;
  }
  INFO(accepted << " of " << proposed << " drafted tokens accepted");
  CHECK(proposed > 20);
  CHECK(typical > 0);  // drafts after a verification: the draft's cache ran a token or two
  e.set_pass_observer(nullptr);
}
