// Speculative decoding with a draft model: greedy output must be token-for-token that of
// the model alone whatever the draft proposes (a draft that is the model itself, accepted
// whole; an unrelated one, mostly rejected; with and without prompt lookup), both KV caches
// must roll back exactly to what was accepted, and a draft of another vocabulary is refused.
// Drafts read their weights as Q5_0 (or Q4_0) unless told to keep them (requantize.h), and
// may score only the first ids of the vocabulary and those of their history.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "engine/decode/speculation/draft_model.h"
#include "engine/decode/speculation/draft_vocab.h"
#include "engine/decode/session.h"
#include "engine/engine_local.h"
#include "tests/engine/decode/speculation_prompts.h"
#include "tests/engine/decode/tiny_model.h"
#include "tests/engine/engine_fixture.h"
#include "tests/engine/model_files.h"
#include "tests/support/fixtures/synthetic_model.h"
#include "tests/support/testing.h"

using namespace wafer;
using test::request;

namespace {

// 62 prompts: repetitive and degenerate ones, random text over a small alphabet, and
// growing prefixes of one text (the same session then reuses, and rolls back, its caches).
std::vector<test::PromptPair> prompts() {
  std::vector<test::PromptPair> p = test::repetitive_prompts();
  for (int seed = 0; seed < 46; ++seed) {
    const std::string s = test::random_text(seed, 5 + seed * 3, "ab xy\n(=:");
    p.push_back({s, seed % 2 ? s.substr(0, 7) : ""});
  }
  const std::string grow = "for i in range(10):\n    print(i, values[i])\n";
  for (size_t n = 8; n <= grow.size(); n += 5) p.push_back({grow.substr(0, n), "\n"});
  return p;
}

SyntheticModelSpec model_spec(const char* arch, uint64_t seed, uint32_t n_layer = 2) {
  SyntheticModelSpec s;
  s.architecture = arch;
  s.seed = seed;
  s.n_layer = n_layer;
  s.context_length = 2048;
  return s;
}

// draft_quant: EngineOptions::draft_quant ("" its default, "q4_0", "q5_0" or "keep");
// draft_vocab: EngineOptions::draft_vocab (-1: its default).
std::unique_ptr<LocalEngine> load(const std::filesystem::path& model, const std::filesystem::path& draft,
                                  bool prompt_lookup, const std::string& draft_quant = "", int draft_vocab = -1) {
  EngineOptions o;
  o.model_path = model.string();
  o.draft_model_path = draft.empty() ? std::string() : draft.string();
  if (!draft_quant.empty()) o.draft_quant = draft_quant;
  if (draft_vocab >= 0) o.draft_vocab = draft_vocab;
  o.threads = 2;
  o.context_length = 1024;
  o.prompt_lookup = prompt_lookup;
  o.max_draft = draft.empty() && !prompt_lookup ? 0 : 8;
  auto e = LocalEngine::load(o);
  INFO((e.ok() ? std::string() : e.error().message));
  REQUIRE(e.ok());
  return std::move(*e);
}

// A prompt of 8 tokens then a 40-token tail, and the same after a keystroke: one token
// more at the end of the 8.
std::pair<std::vector<int32_t>, std::vector<int32_t>> keystroke_prompts() {
  std::vector<int32_t> before;
  for (int i = 0; i < 48; ++i) before.push_back((i * 7 + 3) % 60 + 1);
  std::vector<int32_t> after = before;
  after.insert(after.begin() + 8, 61);
  return {before, after};
}

test::Recorded run(LocalEngine& e, const CompletionRequest& r) {
  test::Recorded rec;
  e.complete(r, rec.callback());
  REQUIRE(rec.finals == 1);
  REQUIRE(rec.last().kind == CompletionEvent::Kind::kDone);
  return rec;
}

}  // namespace

TEST_CASE("draft model: greedy output is identical to the model alone", "[draft_model][speculative]") {
  for (const char* arch : {"llama", "qwen2"}) {
    test::TempDir dir;
    const auto target = dir / "target.gguf", unrelated = dir / "unrelated.gguf";
    REQUIRE(write_synthetic_model(model_spec(arch, 7), target).ok());
    REQUIRE(write_synthetic_model(model_spec(arch, 99, 1), unrelated).ok());
    auto alone = load(target, {}, false);
    struct Drafted {
      const char* name;
      std::unique_ptr<LocalEngine> engine;
      int proposed = 0, accepted = 0;
    } drafted[] = {{"itself", load(target, target, false, "keep")},
                   {"itself read as Q5_0 (the default)", load(target, target, false)},
                   {"itself read as Q4_0", load(target, target, false, "q4_0")},
                   {"itself scoring the first 64 ids and the history's", load(target, target, false, "keep", 64)},
                   {"unrelated", load(target, unrelated, false)},
                   {"unrelated with prompt lookup", load(target, unrelated, true)}};
    for (Drafted& d : drafted) REQUIRE(d.engine->draft_model() != nullptr);
    // The draft's weights (float) are read as Q5_0 or Q4_0 unless kept.
    CHECK_THAT(drafted[0].engine->info().draft_model, Catch::EndsWith("parameters"));
    CHECK_THAT(drafted[1].engine->info().draft_model, Catch::EndsWith("parameters, weights read as Q5_0"));
    CHECK_THAT(drafted[2].engine->info().draft_model, Catch::EndsWith("parameters, weights read as Q4_0"));
    int generated = 0;  // by the model alone, over all prompts
    for (const auto& [prefix, suffix] : prompts()) {
      INFO(arch << " prompt: " << prefix);
      const test::Recorded plain = run(*alone, request("doc", prefix, suffix, 24));
      CHECK(plain.last().timings.drafts_proposed == 0);
      generated += plain.last().timings.tokens_generated;
      for (Drafted& d : drafted) {
        INFO("draft: " << d.name);
        const test::Recorded r = run(*d.engine, request("doc", prefix, suffix, 24));
        CHECK(r.last().text == plain.last().text);
        CHECK(r.streamed == plain.streamed);
        CHECK(r.last().stop == plain.last().stop);
        CHECK(r.last().timings.tokens_generated == plain.last().timings.tokens_generated);
        const Timings& t = r.last().timings;
        CHECK(t.model_drafts_accepted <= t.model_drafts_proposed);
        CHECK(t.model_drafts_proposed <= t.drafts_proposed);
        d.proposed += t.model_drafts_proposed;
        d.accepted += t.model_drafts_accepted;
      }
    }
    std::string acceptance;
    for (const Drafted& d : drafted)
      acceptance += std::string(d.name) + ": " + std::to_string(d.accepted) + " of " + std::to_string(d.proposed) + "; ";
    INFO(arch << " drafts accepted, " << acceptance);
    // The model drafting for itself is accepted, but for drafted tokens past an end of
    // generation and float near-ties between a batched and a one-token pass; an unrelated
    // model mostly is not, and still drafts. A model drafting for itself costs about what
    // it saves, so its drafting may pause (draft_length.h), and then still probes one step
    // in kProbeEvery (of the steps, a request's last tokens do not draft). Its weights read
    // as Q5_0 or Q4_0 (float weights here, 5 or 4 bits there: random weights have no margin
    // to spare) agree with it at most tokens (65-80 % here), so a good share of their drafts
    // is accepted: how much depends on the draft lengths, which follow the measured costs
    // (a token is accepted only with all before it: with 8-token drafts, 0.65 per token
    // accepts a fifth of the drafted tokens). An unrelated model's drafts almost never are.
    CHECK(drafted[0].proposed >= generated / (2 * DraftLength::kProbeEvery));
    CHECK(drafted[0].accepted >= drafted[0].proposed * 9 / 10);
    for (int i : {1, 2}) CHECK(drafted[i].proposed >= generated / (2 * DraftLength::kProbeEvery));
    CHECK(drafted[1].accepted >= drafted[1].proposed / 4);
    CHECK(drafted[2].accepted >= drafted[2].proposed / 6);
    // Scoring a part of the vocabulary, the model drafting for itself proposes only ids it
    // scores: right wherever the model's token is among them.
    CHECK(drafted[3].proposed >= generated / (2 * DraftLength::kProbeEvery));
    CHECK(drafted[3].accepted > 0);
    CHECK(drafted[4].proposed > 0);
    CHECK(drafted[4].accepted < drafted[4].proposed * 3 / 4);
    CHECK(drafted[5].proposed > 0);
  }
}

TEST_CASE("draft model: a warm-up brings the draft's cache to the prompt too", "[draft_model]") {
  test::TempDir dir;
  const auto target = dir / "target.gguf";
  REQUIRE(write_synthetic_model(model_spec("qwen2", 7), target).ok());
  auto alone = load(target, {}, false);
  auto drafted = load(target, target, false, "keep");
  const std::string prefix = "def area(width, height):\n    return width * height\n\ndef perimeter(a, b):\n    ";
  // A prefill-only request leaves the draft's cache alone unless it is a warm-up.
  CompletionRequest early = request("doc", prefix, "\n", 16);
  early.prefill_only = true;
  run(*drafted, early);
  CHECK(drafted->draft_model()->session().tokens().empty());
  CompletionRequest warm = request("doc", prefix, "\n", 16);
  warm.prefill_only = true;
  warm.warm_draft = true;
  const test::Recorded w = run(*drafted, warm);
  const int prompt_tokens = w.last().timings.tokens_reused + w.last().timings.tokens_prefilled;
  REQUIRE(prompt_tokens > 8);
  CHECK(w.last().timings.tokens_generated == 0);
  // The draft's cache holds the prompt and the logits after it: the first draft of the
  // request that follows runs one token (the model's first), not the prompt.
  const DraftModel* draft = drafted->draft_model();
  REQUIRE(draft != nullptr);
  CHECK(static_cast<int>(draft->session().tokens().size()) == prompt_tokens);
  CHECK(draft->last_catch_up_tokens() == prompt_tokens);
  CHECK(draft->session().logits_follow_cache());
  CHECK(w.last().timings.draft_ms > 0);
  const test::Recorded real = run(*drafted, request("doc", prefix, "\n", 16));
  CHECK(real.last().timings.tokens_prefilled == 0);
  CHECK(real.last().timings.model_drafts_proposed > 0);
  CHECK(real.last().text == run(*alone, request("doc", prefix, "\n", 16)).last().text);
  // A warm-up whose draft part was stopped (a request waits for its model part) prefills
  // the model only.
  CompletionRequest stopped = request("third", "class Point:\n    def __init__(self, x):\n        ", "\n", 16);
  stopped.prefill_only = true;
  stopped.warm_draft = true;
  stopped.stop_draft = std::make_shared<std::atomic<bool>>(true);
  const std::vector<int32_t> draft_cache = draft->session().tokens();
  const test::Recorded s = run(*drafted, stopped);
  CHECK(s.last().timings.tokens_prefilled > 8);
  CHECK(s.last().timings.draft_ms == 0);
  CHECK(draft->session().tokens() == draft_cache);
  // Sampling (no speculation) leaves the draft's cache alone.
  CompletionRequest sampled = request("other", "x = 1\n", "\n", 16);
  sampled.prefill_only = true;
  sampled.warm_draft = true;
  sampled.temperature = 0.8f;
  const std::vector<int32_t> before = draft->session().tokens();
  run(*drafted, sampled);
  CHECK(draft->session().tokens() == before);
}

TEST_CASE("draft model: rolling back a rejected draft leaves the draft's cache as plain decoding would",
          "[draft_model]") {
  test::TinyModel tiny;
  const Model& model = *tiny.model;
  ThreadPool& pool = tiny.pool;
  auto drafter = DraftModel::create(model, pool, 128, KvType::F32, 8);
  REQUIRE(drafter.ok());
  const std::vector<int32_t> history{1, 5, 9, 14, 2, 33};
  auto first = drafter->propose(history, 4);
  REQUIRE(first.ok());
  REQUIRE(first->size() == 4);
  // The draft's cache holds the history and all drafted tokens but the last.
  CHECK(drafter->session().tokens().size() == history.size() + 3);
  CHECK(drafter->last_catch_up_tokens() == static_cast<int>(history.size()));  // a new prompt

  // The target accepted two drafted tokens and chose another token than the third.
  std::vector<int32_t> next = history;
  next.insert(next.end(), first->begin(), first->begin() + 2);
  next.push_back(((*first)[2] + 1) % 64);
  auto second = drafter->propose(next, 4);
  REQUIRE(second.ok());
  CHECK(drafter->last_catch_up_tokens() == 1);  // only the token the target chose

  // Plain decoding of the same tokens, one at a time as the draft ran them: the same draft
  // and bit-identical logits, so nothing of the rolled-back tokens is left in the cache.
  auto plain = Session::create(model, pool, 128, KvType::F32);
  REQUIRE(plain.ok());
  REQUIRE(plain->eval(history).ok());
  for (size_t i = history.size(); i < next.size(); ++i) REQUIRE(plain->eval(std::span(&next[i], 1)).ok());
  std::vector<int32_t> expected;
  for (int i = 0; i < 4; ++i) {
    const int32_t t = greedy_token(plain->logits());
    expected.push_back(t);
    if (i < 3) REQUIRE(plain->eval(std::span(&t, 1)).ok());
  }
  CHECK(*second == expected);
  CHECK(drafter->session().tokens() == plain->tokens());
  CHECK(drafter->session().logits() == plain->logits());

  // And the same history again proposes again without running the rolled-back tokens.
  auto third = drafter->propose(next, 4);
  REQUIRE(third.ok());
  CHECK(*third == expected);
}

TEST_CASE("draft model: the target's cache after verification continues as after plain decoding",
          "[draft_model]") {
  test::TinyModel tiny;
  const Model& model = *tiny.model;
  ThreadPool& pool = tiny.pool;
  const std::vector<int32_t> prompt{3, 8, 21, 40, 2, 11, 7};
  const std::vector<int32_t> verified{5, 17, 30, 44, 9};  // token, then four drafts
  auto spec_s = Session::create(model, pool, 64, KvType::F32);
  auto plain = Session::create(model, pool, 64, KvType::F32);
  REQUIRE(spec_s.ok());
  REQUIRE(plain.ok());
  REQUIRE(spec_s->eval(prompt).ok());
  REQUIRE(plain->eval(prompt).ok());
  // Verification: the whole batch in, then all but the token and two accepted drafts out.
  REQUIRE(spec_s->eval(verified, LogitsFor::kAll).ok());
  spec_s->truncate(static_cast<int>(prompt.size()) + 3);
  REQUIRE(plain->eval(std::span(verified.data(), 3), LogitsFor::kAll).ok());
  const int32_t corrected = 50;
  REQUIRE(spec_s->eval(std::span(&corrected, 1)).ok());
  REQUIRE(plain->eval(std::span(&corrected, 1)).ok());
  CHECK(spec_s->tokens() == plain->tokens());
  REQUIRE(spec_s->logits().size() == plain->logits().size());
  for (size_t i = 0; i < plain->logits().size(); ++i) CHECK(spec_s->logits()[i] == Approx(plain->logits()[i]).margin(1e-4));
  CHECK(greedy_token(spec_s->logits()) == greedy_token(plain->logits()));
}

TEST_CASE("draft model: another vocabulary is refused with an error", "[draft_model]") {
  test::TempDir dir;
  const auto target = dir / "target.gguf", other = dir / "other.gguf";
  REQUIRE(write_synthetic_model(model_spec("qwen2", 7), target).ok());
  SyntheticModelSpec o = model_spec("qwen2", 7);
  o.n_vocab = 400;  // padded: the same ids up to the byte and control tokens, more after
  REQUIRE(write_synthetic_model(o, other).ok());
  EngineOptions opts;
  opts.model_path = target.string();
  opts.draft_model_path = other.string();
  opts.threads = 2;
  opts.context_length = 256;
  auto e = LocalEngine::load(opts);
  REQUIRE_FALSE(e.ok());
  CHECK_THAT(e.error().message, Catch::Contains("draft model") && Catch::Contains("vocabulary"));

  opts.draft_model_path = target.string();
  opts.draft_quant = "q2";
  auto quant = LocalEngine::load(opts);
  REQUIRE_FALSE(quant.ok());
  CHECK_THAT(quant.error().message, Catch::Contains("draft weights 'q2'") && Catch::Contains("q4_0, q5_0 or keep"));
  opts.draft_quant = "keep";

  opts.draft_model_path = (dir / "missing.gguf").string();
  auto missing = LocalEngine::load(opts);
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::Contains("draft model"));
}

TEST_CASE("draft vocabulary: token texts, FIM markers and end tokens must match", "[draft_model]") {
  test::TempDir dir;
  REQUIRE(write_synthetic_model(model_spec("llama", 1), dir / "m.gguf").ok());
  EngineOptions opts;
  opts.model_path = (dir / "m.gguf").string();
  opts.threads = 1;
  opts.context_length = 64;
  auto e = LocalEngine::load(opts);
  REQUIRE(e.ok());
  const Tokenizer& tok = (*e)->tokenizer();
  auto fim = find_fim_tokens(tok);
  REQUIRE(fim.ok());
  const DraftVocab same{tok.n_vocab(), &tok, &*fim};
  CHECK(check_draft_vocab(same, same).ok());

  DraftVocab wider = same;
  wider.n_logits += 1;
  auto w = check_draft_vocab(same, wider);
  REQUIRE_FALSE(w.ok());
  CHECK_THAT(w.error().message, Catch::Contains("vocabulary"));

  FimTokens moved = *fim;
  moved.middle = moved.prefix;
  auto m = check_draft_vocab(same, DraftVocab{tok.n_vocab(), &tok, &moved});
  REQUIRE_FALSE(m.ok());
  CHECK_THAT(m.error().message, Catch::Contains("FIM middle"));

  FimTokens ends = *fim;
  ends.end_of_generation.pop_back();
  CHECK_FALSE(check_draft_vocab(same, DraftVocab{tok.n_vocab(), &tok, &ends}).ok());
}

TEST_CASE("draft model: with a vocabulary head it proposes the best of the first ids and the history's",
          "[draft_model]") {
  test::TinyModel tiny;  // 64 ids
  auto drafter = DraftModel::create(*tiny.model, tiny.pool, 128, KvType::F32, 8, 0, 16);
  REQUIRE(drafter.ok());
  const std::vector<int32_t> history{1, 50, 9, 14, 2, 33, 50, 21};
  auto draft = drafter->propose(history, 4);
  REQUIRE(draft.ok());
  REQUIRE(draft->size() == 4);
  const auto allowed = [&](int32_t t) { return t < 16 || std::find(history.begin(), history.end(), t) != history.end(); };
  for (int32_t t : *draft) CHECK(allowed(t));
  // The first is the allowed id with the highest logit of plain decoding.
  auto plain = Session::create(*tiny.model, tiny.pool, 128, KvType::F32);
  REQUIRE(plain.ok());
  REQUIRE(plain->eval(history).ok());
  const std::vector<float>& logits = plain->logits();
  int32_t best = -1;
  for (int32_t t = 0; t < static_cast<int32_t>(logits.size()); ++t)
    if (allowed(t) && (best < 0 || logits[static_cast<size_t>(t)] > logits[static_cast<size_t>(best)])) best = t;
  CHECK((*draft)[0] == best);
  // The draft's own logits: -infinity for every id it does not score.
  for (int32_t t = 0; t < static_cast<int32_t>(logits.size()); ++t) {
    const float v = drafter->session().logits()[static_cast<size_t>(t)];
    if (allowed(t)) CHECK(std::isfinite(v));
    else CHECK(std::isinf(v));
  }
  // A head as wide as the vocabulary scores every id.
  auto whole = DraftModel::create(*tiny.model, tiny.pool, 128, KvType::F32, 8, 0, 64);
  REQUIRE(whole.ok());
  auto all = whole->propose(history, 1);
  REQUIRE(all.ok());
  CHECK((*all)[0] == greedy_token(logits));
}

TEST_CASE("draft model: a draft ends with a token that ends the generation", "[draft_model]") {
  test::TinyModel tiny;
  auto drafter = DraftModel::create(*tiny.model, tiny.pool, 128, KvType::F32, 8);
  REQUIRE(drafter.ok());
  const std::vector<int32_t> history{1, 5, 9, 14, 2, 33};
  auto whole = drafter->propose(history, 4);
  REQUIRE(whole.ok());
  REQUIRE(whole->size() == 4);
  // The second drafted token ends the generation: the draft stops with it, and its cache
  // holds the history and the first token only (the end token is never run).
  const int32_t end = (*whole)[1];
  const DraftModel::EndsGeneration ends = [end](int32_t t) { return t == end; };
  auto cut = drafter->propose(history, 4, nullptr, &ends);
  REQUIRE(cut.ok());
  CHECK(*cut == std::vector<int32_t>(whole->begin(), whole->begin() + 2));
  CHECK(drafter->session().tokens().size() == history.size() + 1);
}

TEST_CASE("draft model: with chunk reuse a prompt whose tail moved is caught up by moving the tail",
          "[draft_model][chunk_reuse]") {
  test::TinyModel tiny;
  const auto [before, after] = keystroke_prompts();
  for (int reuse : {0, 16}) {
    INFO("chunk reuse " << reuse);
    auto drafter = DraftModel::create(*tiny.model, tiny.pool, 128, KvType::F32, 8, reuse);
    REQUIRE(drafter.ok());
    REQUIRE(drafter->propose(before, 1).ok());
    auto draft = drafter->propose(after, 1);
    REQUIRE(draft.ok());
    REQUIRE(draft->size() == 1);
    CHECK(drafter->session().tokens() == after);
    // Exact arithmetic evaluates `after` from scratch; the moved tail was computed after the
    // old prefix, so with chunk reuse the logits are those of an approximation.
    auto plain = Session::create(*tiny.model, tiny.pool, 128, KvType::F32);
    REQUIRE(plain.ok());
    REQUIRE(plain->eval(after).ok());
    if (reuse == 0) {
      CHECK(drafter->session().logits() == plain->logits());
      CHECK(*draft == std::vector<int32_t>{greedy_token(plain->logits())});
    } else {
      CHECK(drafter->session().logits() != plain->logits());
    }
  }
}

TEST_CASE("draft model: the size of a catch-up is known before it runs, moved chunks left out",
          "[draft_model][chunk_reuse]") {
  test::TinyModel tiny;
  const auto [before, after] = keystroke_prompts();
  for (int reuse : {0, 16}) {
    INFO("chunk reuse " << reuse);
    auto drafter = DraftModel::create(*tiny.model, tiny.pool, 128, KvType::F32, 8, reuse);
    REQUIRE(drafter.ok());
    CHECK(drafter->catch_up_size(before) == 48);  // an empty cache: all of it
    CHECK(drafter->catch_up_pays(before, 1, 1));   // nothing measured yet, but short: catch up
    REQUIRE(drafter->propose(before, 1).ok());
    CHECK(drafter->catch_up_size(before) == 0);
    CHECK(drafter->catch_up_ms_per_token() > 0);  // 48 tokens were timed
    const int planned = drafter->catch_up_size(after);
    CHECK(planned == (reuse ? 2 : 41));  // the new token and the last one, or the whole tail
    REQUIRE(drafter->propose(after, 1).ok());
    CHECK(drafter->last_catch_up_tokens() == planned);
  }
}

TEST_CASE("draft model: a catch-up pays when drafting saves more over the tokens left, as recent requests ran",
          "[draft_model]") {
  test::TinyModel tiny;
  auto drafter = DraftModel::create(*tiny.model, tiny.pool, 256, KvType::F32, 8);
  REQUIRE(drafter.ok());
  const auto [near, unused] = keystroke_prompts();
  REQUIRE(drafter->propose(near, 1).ok());  // 48 tokens caught up: timed
  REQUIRE(drafter->catch_up_ms_per_token() > 0);
  std::vector<int32_t> far;  // another document: 100 tokens, none in common
  for (int i = 0; i < 100; ++i) far.push_back((i * 11 + 5) % 60 + 2);
  far[0] = 63;
  REQUIRE(drafter->catch_up_size(far) == 100);
  CHECK(drafter->catch_up_pays(far, 1, 2));  // no saving measured yet, and under kUnmeasuredCatchUp tokens
  std::vector<int32_t> farther = far;  // 200 tokens: too long to run before both costs are known
  for (int i = 0; i < 100; ++i) farther.push_back((i * 7 + 3) % 60 + 2);
  REQUIRE(drafter->catch_up_size(farther) == 200);
  CHECK_FALSE(drafter->catch_up_pays(farther, 1, 1000000));
  // Drafts that save 7.5 us a token (always accepted, a token 1 us, a pass 10 us + 0.5 us a row).
  for (int r = 0; r < 40; ++r) {
    drafter->record_step(0.01);
    const int k = std::max(1, drafter->draft_length());
    drafter->record(k, k);
    drafter->record_costs(k, k * 0.001, 0.01 + 0.0005 * k);
  }
  // 100 tokens through the model cost more than 7.5 us; a million tokens' savings more.
  CHECK_FALSE(drafter->catch_up_pays(far, 1, 2));
  CHECK(drafter->catch_up_pays(far, 1, 1000000));
  CHECK(drafter->catch_up_pays(farther, 1, 1000000));  // both measured: weighed like any other
  // Recent requests ended after 2 tokens: the next is expected to as well.
  for (int i = 0; i < 10; ++i) drafter->note_request_tokens(2);
  CHECK_FALSE(drafter->catch_up_pays(far, 1, 1000000));
  // A keystroke's catch-up always pays.
  std::vector<int32_t> typed = near;
  typed.push_back(5);
  CHECK(drafter->catch_up_pays(typed, 1, 2));
}

// A qwen2-shaped synthetic model drafting for itself, and the same model alone.
struct SelfDraft {
  test::TempDir dir;
  std::unique_ptr<LocalEngine> alone, drafted;
  const DraftModel* draft = nullptr;
  SelfDraft() {
    const auto target = dir / "target.gguf";
    REQUIRE(write_synthetic_model(model_spec("qwen2", 7), target).ok());
    alone = load(target, {}, false);
    drafted = load(target, target, false, "keep");
    draft = drafted->draft_model();
    REQUIRE(draft != nullptr);
  }
  // What the daemon runs after a request that sat out: its prompt, prefill only, the
  // draft's cache brought there too.
  void idle_catch_up(CompletionRequest r) {
    r.prefill_only = true;
    r.warm_draft = true;
    run(*drafted, r);
  }
};

TEST_CASE("draft model: a draft far behind a request that may leave it to later sits the request out",
          "[draft_model]") {
  SelfDraft f;
  LocalEngine &alone = *f.alone, &drafted = *f.drafted;
  const DraftModel* draft = f.draft;
  // A first document: the draft catches up with its whole prompt (timed) and drafts.
  const std::string a = "def area(width, height):\n    return width * height\n\ndef perimeter(a, b):\n    ";
  const test::Recorded first = run(drafted, request("a", a, "\n", 16));
  CHECK(first.last().timings.model_drafts_proposed > 0);
  REQUIRE(draft->catch_up_ms_per_token() > 0);
  // Another document, a long prompt, 3 tokens to generate: catching up costs the whole
  // prompt, drafting could save on 2 tokens at most.
  std::string b;
  for (int i = 0; i < 20; ++i) b += "value_" + std::to_string(i) + " = compute(" + std::to_string(i * 3) + ")\n";
  CompletionRequest far = request("b", b, "\n", 3);
  far.draft_catch_up_later = true;
  const std::vector<int32_t> cached = draft->session().tokens();
  const test::Recorded sat_out = run(drafted, far);
  CHECK(sat_out.last().timings.draft_behind);
  CHECK(sat_out.last().timings.model_drafts_proposed == 0);
  CHECK(draft->session().tokens() == cached);  // untouched
  CHECK(sat_out.last().text == run(alone, request("b", b, "\n", 3)).last().text);
  // The caller catches it up in idle time; the next request there drafts.
  f.idle_catch_up(request("b", b, "\n", 3));
  const test::Recorded next = run(drafted, far);
  CHECK_FALSE(next.last().timings.draft_behind);
  CHECK(next.last().timings.model_drafts_proposed > 0);
  CHECK(next.last().text == sat_out.last().text);
  // Without draft_catch_up_later the draft catches up whatever it costs.
  const test::Recorded plain = run(drafted, request("a", a, "\n", 16));
  CHECK_FALSE(plain.last().timings.draft_behind);
  CHECK(plain.last().timings.model_drafts_proposed > 0);
}

TEST_CASE("draft model: in a fresh engine a long catch-up sits the request out until it is timed", "[draft_model]") {
  SelfDraft f;
  LocalEngine &alone = *f.alone, &drafted = *f.drafted;
  const DraftModel* draft = f.draft;
  REQUIRE(draft->catch_up_ms_per_token() < 0);  // nothing timed, nothing drafted
  std::string c;
  for (int i = 0; i < 40; ++i) c += "item_" + std::to_string(i) + " = load(" + std::to_string(i * 7) + ")\n";
  CompletionRequest first = request("c", c, "\n", 16);
  first.draft_catch_up_later = true;
  const test::Recorded sat_out = run(drafted, first);
  CHECK(sat_out.last().timings.draft_behind);
  CHECK(sat_out.last().timings.model_drafts_proposed == 0);
  CHECK(draft->session().tokens().empty());  // untouched
  CHECK(sat_out.last().text == run(alone, request("c", c, "\n", 16)).last().text);
  // The idle catch-up after it times the draft's prefill; the next request there drafts
  // (its catch-up is a token or two), which measures the saving.
  f.idle_catch_up(request("c", c, "\n", 16));
  CHECK(draft->catch_up_ms_per_token() > 0);
  CHECK(draft->session().tokens().size() > DraftModel::kUnmeasuredCatchUp);
  const test::Recorded next = run(drafted, first);
  CHECK_FALSE(next.last().timings.draft_behind);
  CHECK(next.last().timings.model_drafts_proposed > 0);
  CHECK(next.last().text == sat_out.last().text);
}
