// The copy predictor (engine/decode/copy_predictor.h): which repeat it finds, the mixed distribution it
// writes, the GGUF key that turns it on, and the engine decoding with it (greedy copies a
// repeat the random-weight network would never produce; speculation changes nothing).
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "engine/decode/copy_predictor.h"
#include "engine/gguf/gguf_writer.h"
#include "tests/engine/engine_fixture.h"
#include "tests/support/gguf_build.h"

using namespace wafer;
using test::request;

namespace {

std::vector<TokenId> ids(std::initializer_list<int> v) { return std::vector<TokenId>(v.begin(), v.end()); }

double prob(const std::vector<float>& logp, int t) { return std::exp(static_cast<double>(logp[static_cast<size_t>(t)])); }

}  // namespace

TEST_CASE("copy predictor: the longest repeat's next token gets weight L/(L+c)", "[copy_predictor]") {
  CopyPredictor m({.strength = 1.0f, .min_match = 2, .max_match = 32});
  // 1 2 3 4 ... 1 2 3: the end "1 2 3" repeats 3 tokens, followed by 4; "2 3" also
  // follows 9 -> 7 but that repeat is shorter.
  m.reset(ids({9, 2, 3, 7, 1, 2, 3, 4, 5, 1, 2, 3}));
  const std::vector<float> logits(10, 0.0f);  // the network: uniform over 10 tokens
  std::vector<float> out;
  REQUIRE(m.mix(logits, out));
  CHECK(m.last_match() == 3);
  REQUIRE(out.size() == 10);
  const double w = 3.0 / 4.0;
  CHECK(prob(out, 4) == Approx((1 - w) * 0.1 + w));
  CHECK(prob(out, 7) == Approx((1 - w) * 0.1));
  CHECK(prob(out, 0) == Approx((1 - w) * 0.1));
  double total = 0;
  for (int t = 0; t < 10; ++t) total += prob(out, t);
  CHECK(total == Approx(1.0));
  // The network's own preference is kept in proportion: a confident network still wins
  // against a weak copy predictor.
  std::vector<float> sharp(10, 0.0f);
  sharp[6] = 12.0f;
  CopyPredictor weak({.strength = 100.0f});
  weak.reset(ids({9, 2, 3, 7, 1, 2, 3, 4, 5, 1, 2, 3}));
  REQUIRE(weak.mix(sharp, out));
  CHECK(std::max_element(out.begin(), out.end()) - out.begin() == 6);
}

TEST_CASE("copy predictor: repeats with different continuations share the weight", "[copy_predictor]") {
  CopyPredictor m({.strength = 2.0f});
  m.reset(ids({5, 6, 1, 5, 6, 2, 5, 6, 1, 8, 5, 6}));  // "5 6" followed by 1, 2, 1
  const std::vector<float> logits(10, 0.0f);
  std::vector<float> out;
  REQUIRE(m.mix(logits, out));
  CHECK(m.last_match() == 2);
  const double w = 2.0 / 4.0;
  CHECK(prob(out, 1) == Approx((1 - w) * 0.1 + w * 2 / 3));
  CHECK(prob(out, 2) == Approx((1 - w) * 0.1 + w / 3));
  CHECK(prob(out, 8) == Approx((1 - w) * 0.1));
}

TEST_CASE("copy predictor: no repeat, too short a repeat or strength 0 leave the logits alone", "[copy_predictor]") {
  const std::vector<float> logits{0.5f, 1.0f, -2.0f, 3.0f};
  std::vector<float> out{42.0f};
  CopyPredictor m({.strength = 1.0f, .min_match = 2});
  m.reset(ids({0, 1, 2, 3}));
  CHECK_FALSE(m.mix(logits, out));
  m.reset(ids({0, 1, 2, 1}));  // "1" repeats, but one token is below min_match
  CHECK_FALSE(m.mix(logits, out));
  CHECK(m.last_match() == 0);
  m.push(2);                   // "1 2" now repeats (followed by 1)
  CHECK(m.mix(logits, out));
  CHECK(m.last_match() == 2);
  CopyPredictor off({.strength = 0.0f});
  off.reset(ids({0, 1, 0, 1}));
  CHECK_FALSE(off.enabled());
  out = {42.0f};
  CHECK_FALSE(off.mix(logits, out));
  CHECK(out == std::vector<float>{42.0f});
  CopyPredictor empty({.strength = 1.0f});
  CHECK_FALSE(empty.mix(logits, out));
  CHECK_FALSE(empty.mix({}, out));
}

TEST_CASE("copy predictor: max_match caps L, and tokens outside the vocabulary are ignored", "[copy_predictor]") {
  std::vector<TokenId> s;
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < 20; ++i) s.push_back(i % 7);
  CopyPredictor m({.strength = 1.0f, .min_match = 2, .max_match = 4});
  m.reset(s);
  const std::vector<float> logits(7, 0.0f);
  std::vector<float> out;
  REQUIRE(m.mix(logits, out));
  CHECK(m.last_match() == 4);
  CopyPredictor big({.strength = 1.0f});
  big.reset(ids({100, 3, 4, 100, 3, 4}));  // "100 3 4" repeats and is followed by 100
  REQUIRE(big.mix(logits, out));
  CHECK(big.last_match() == 3);
  double total = 0;
  for (int t = 0; t < 7; ++t) total += prob(out, t);
  CHECK(total == Approx(1.0 - 3.0 / 4.0));  // the copy share went to a token the row lacks
  // A repeat that runs into a separator between texts predicts nothing either.
  CopyPredictor sep({.strength = 1.0f});
  sep.reset(ids({3, 4, kCopySeparator, 5, 3, 4}));
  REQUIRE(sep.mix(logits, out));
  CHECK(sep.last_match() == 2);
  CHECK(std::max_element(out.begin(), out.end()) - out.begin() == 0);  // all equal: the first
  total = 0;
  for (int t = 0; t < 7; ++t) total += prob(out, t);
  CHECK(total == Approx(1.0 - 2.0 / 3.0));
}

TEST_CASE("copy predictor: the model file turns it on with wafer.copy_strength", "[copy_predictor]") {
  auto strength = [](std::function<void(GgufWriter&)> add) {
    return read_built_gguf<float>(add, model_copy_strength);
  };
  CHECK(strength([](GgufWriter&) {}) == 0.0f);
  CHECK(strength([](GgufWriter& w) { w.add_f32(kCopyStrengthKey, 2.5f); }) == 2.5f);
  CHECK(strength([](GgufWriter& w) { w.add_f64(kCopyStrengthKey, 0.75); }) == 0.75f);
  CHECK(strength([](GgufWriter& w) { w.add_f32(kCopyStrengthKey, -1.0f); }) == 0.0f);
  CHECK(strength([](GgufWriter& w) { w.add_f32(kCopyStrengthKey, NAN); }) == 0.0f);
  CHECK(strength([](GgufWriter& w) { w.add_string(kCopyStrengthKey, "2"); }) == 0.0f);
}

TEST_CASE("copy predictor in the engine: greedy decoding continues a repeat of the prefix, in PSM and SPM",
          "[copy_predictor][engine]") {
  const std::string prefix = "alpha = compute_total(items, 42)\nbeta = 7\nalpha = compute_";
  for (const char* format : {"auto", "qwen", "qwen-spm"}) {
    INFO("format " << format);
    EngineOptions strong;
    strong.copy_strength = 0.01f;  // w ~ 1: the copy predictor decides wherever a repeat exists
    strong.fim_format = format;
    test::EngineFixture f(strong);
    CHECK(f.engine->info().copy_strength == 0.01f);
    test::Recorded r = f.run(request("k", prefix, "\nprint(alpha)\n", 12));
    REQUIRE(r.last().kind == CompletionEvent::Kind::kDone);
    CHECK(r.last().text.rfind("total(items", 0) == 0);
    EngineOptions off;
    off.copy_strength = 0;
    off.fim_format = format;
    test::EngineFixture g(off);
    CHECK(g.engine->info().copy_strength == 0.0f);
    test::Recorded plain = g.run(request("k", prefix, "\nprint(alpha)\n", 12));
    CHECK(plain.last().text != r.last().text);  // random weights: it is the copy predictor
  }
}

TEST_CASE("copy predictor in the engine: speculative decoding gives the same text", "[copy_predictor][engine]") {
  EngineOptions o;
  o.copy_strength = 1.0f;
  test::EngineFixture f(o);
  std::string lines;
  for (int i = 0; i < 8; ++i) lines += "    total += values[" + std::to_string(i % 3) + "]\n";
  for (const auto& [prefix, suffix] :
       {std::pair<std::string, std::string>{"def f(values):\n" + lines + "    total += ", "\n    return total\n"},
        {"abcabcabcabcabcabcabc", "abc"},
        {"import os\nimport sys\nimport os\nimport ", "\n"}}) {
    INFO(prefix);
    f.engine->set_max_draft(0);
    test::Recorded plain = f.run(request("plain", prefix, suffix, 30));
    f.engine->set_max_draft(8);
    test::Recorded spec = f.run(request("spec", prefix, suffix, 30));
    CHECK(spec.last().text == plain.last().text);
    CHECK(spec.streamed == plain.streamed);
  }
}

TEST_CASE("copy predictor in the engine: it also reads the text around the window, never the prompt",
          "[copy_predictor][engine]") {
  EngineOptions strong;
  strong.copy_strength = 0.01f;
  test::EngineFixture f(strong);
  CompletionRequest r = request("k", "beta = 7\nalpha = compute_", "\nprint(alpha)\n", 12);
  r.copy_before = "alpha = compute_total(items, 42)\n";
  test::Recorded before = f.run(r);
  CHECK(before.last().text.rfind("total(items", 0) == 0);
  const int prompt_tokens = before.last().timings.tokens_prefilled + before.last().timings.tokens_reused;
  r.copy_before.clear();  // the same prompt: the extra text is not in it
  r.copy_after = "\nomega = compute_sum(values)\n";
  r.session_key = "k2";
  test::Recorded after = f.run(r);
  CHECK(after.last().text.rfind("sum(values", 0) == 0);
  CHECK(after.last().timings.tokens_prefilled + after.last().timings.tokens_reused == prompt_tokens);
  // Without a copy predictor the extra text changes nothing.
  EngineOptions off;
  off.copy_strength = 0;
  test::EngineFixture g(off);
  CompletionRequest plain = request("k", "beta = 7\nalpha = compute_", "\nprint(alpha)\n", 12);
  const std::string expected = g.run(plain).last().text;
  plain.copy_before = "alpha = compute_total(items, 42)\n";
  plain.session_key = "k3";
  CHECK(g.run(plain).last().text == expected);
}
