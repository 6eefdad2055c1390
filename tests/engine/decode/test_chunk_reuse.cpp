// Chunk reuse: the plan (which spans of a new prompt can be moved from the cache), the key
// re-rotation it relies on, and a completion that uses it end to end.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "engine/decode/chunk_reuse.h"
#include "engine/compute/forward.h"
#include "engine/compute/kv_cache.h"
#include "engine/model/model.h"
#include "tests/engine/engine_fixture.h"

using namespace wafer;

namespace {

std::vector<int32_t> iota(int from, int n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), from);
  return v;
}

std::vector<int32_t> cat(std::initializer_list<std::vector<int32_t>> parts) {
  std::vector<int32_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace

TEST_CASE("chunk reuse plan: the suffix that moved after a keystroke", "[chunk_reuse]") {
  const auto prefix = iota(0, 50), suffix = iota(100, 40);
  const std::vector<int32_t> middle = {999};
  // Old: prefix + [7] + suffix + middle + two generated tokens. New: one more typed token.
  const auto cached = cat({prefix, {7}, suffix, middle, {500, 501}});
  const auto prompt = cat({prefix, {7, 8}, suffix, middle});
  const auto plan = plan_chunk_reuse(cached, prompt, 51, 16);
  REQUIRE(plan.size() == 1);
  CHECK(plan[0].prompt_pos == 52);
  CHECK(plan[0].cache_pos == 51);
  CHECK(plan[0].n == 40);  // the suffix; the final marker is evaluated for fresh logits

  // A deletion (backspace) moves the suffix the other way.
  const auto back = cat({prefix, suffix, middle});
  const auto plan2 = plan_chunk_reuse(cached, back, 50, 16);
  REQUIRE(plan2.size() == 1);
  CHECK(plan2[0].prompt_pos == 50);
  CHECK(plan2[0].cache_pos == 51);
  CHECK(plan2[0].n == 40);
}

TEST_CASE("chunk reuse plan: limits", "[chunk_reuse]") {
  const auto a = iota(0, 30), b = iota(200, 30), c = iota(400, 30);
  const auto cached = cat({a, {1000}, b, {1001}, c, {1002}});
  SECTION("off, or chunks shorter than the minimum") {
    const auto prompt = cat({a, {5}, b, {1002}});
    CHECK(plan_chunk_reuse(cached, prompt, 30, 0).empty());
    CHECK(plan_chunk_reuse(cached, prompt, 30, 31).empty());
  }
  SECTION("several chunks in prompt and cache order, new tokens between them") {
    const auto prompt = cat({a, {5, 6}, b, {7}, c, {1002}});
    const auto plan = plan_chunk_reuse(cached, prompt, 30, 8);
    REQUIRE(plan.size() == 2);
    CHECK(plan[0].prompt_pos == 32);
    CHECK(plan[0].cache_pos == 31);
    CHECK(plan[0].n == 30);
    CHECK(plan[1].prompt_pos == 63);
    CHECK(plan[1].cache_pos == 62);
    CHECK(plan[1].n == 30);
  }
  SECTION("chunks never reorder: a span that moved before another is skipped") {
    const auto prompt = cat({a, c, b, {1002}});
    const auto plan = plan_chunk_reuse(cached, prompt, 30, 8);
    REQUIRE(plan.size() == 1);
    CHECK(plan[0].cache_pos == 62);  // c; b then lies behind it in the cache
  }
  SECTION("the last prompt token is never taken from the cache") {
    const auto prompt = cat({a, {5}, b});
    const auto plan = plan_chunk_reuse(cached, prompt, 30, 8);
    REQUIRE(plan.size() == 1);
    CHECK(plan[0].n == 29);
  }
  SECTION("no match in a long prompt is cheap and empty") {
    std::vector<int32_t> same_token(20000, 3), other(20000, 4);
    CHECK(plan_chunk_reuse(same_token, other, 0, 4).empty());
  }
}

TEST_CASE("shift_keys: a first-layer key moved by d equals the key computed d positions later", "[chunk_reuse]") {
  // Layer 0's keys depend only on the token and its position (not on the tokens before), so
  // the cached keys of tokens run at positions 0.. rotated by 3 must equal those of the same
  // tokens run at positions 3..
  for (const char* arch : {"llama", "qwen2"}) {
    test::TempDir dir;
    SyntheticModelSpec spec;
    spec.architecture = arch;
    spec.rope_freq_base = std::string(arch) == "qwen2" ? 1e6f : 1e4f;
    REQUIRE(write_synthetic_model(spec, dir / "m.gguf").ok());
    auto model = Model::load(dir / "m.gguf");
    REQUIRE(model.ok());
    ThreadPool pool(2);
    Forward fwd(**model, pool);
    auto a = KvCache::create((*model)->config(), 64);
    auto b = KvCache::create((*model)->config(), 64);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    const std::vector<int32_t> tokens = {72, 101, 108, 108, 111, 32, 119};
    std::vector<int32_t> shifted = {10, 10, 10};
    shifted.insert(shifted.end(), tokens.begin(), tokens.end());
    std::vector<float> logits;
    REQUIRE(fwd.run(tokens, *a, LogitsFor::kNone, logits).ok());
    REQUIRE(fwd.run(shifted, *b, LogitsFor::kNone, logits).ok());
    std::vector<float> before(16);
    for (int i = 0; i < 16; ++i) before[i] = a->key(0, 0, 0, i);
    fwd.shift_keys(*a, 0, static_cast<int>(tokens.size()), 3);
    const auto& c = (*model)->config();
    double worst = 0, moved = 0;
    for (uint32_t h = 0; h < c.n_head_kv; ++h)
      for (int p = 0; p < static_cast<int>(tokens.size()); ++p)
        for (uint32_t i = 0; i < c.head_dim_k; ++i)
          worst = std::max<double>(worst, std::fabs(a->key(0, h, p, i) - b->key(0, h, p + 3, i)));
    for (int i = 0; i < 16; ++i) moved = std::max<double>(moved, std::fabs(before[i] - a->key(0, 0, 0, i)));
    INFO(arch);
    CHECK(worst < 1e-4);
    CHECK(moved > 1e-3);  // the rotation really changed the keys
    // And back: shifting by -3 restores them.
    fwd.shift_keys(*a, 0, static_cast<int>(tokens.size()), -3);
    for (int i = 0; i < 16; ++i) CHECK(std::fabs(a->key(0, 0, 0, i) - before[i]) < 1e-4);
  }
}

TEST_CASE("chunk reuse in a completion: only the typed tokens are prefilled", "[chunk_reuse]") {
  EngineOptions o;
  o.chunk_reuse_min = 8;
  o.max_draft = 0;
  test::EngineFixture f(o);
  std::string suffix;
  for (int i = 0; i < 12; ++i) suffix += "\n    total += value_" + std::to_string(i);
  const std::string prefix = "def total(values):\n    total = 0\n    for v in values:\n        ";
  f.run(test::request("doc", prefix, suffix, 4));
  int moved_requests = 0;
  for (const std::string typed : {"t", "to", "tot", "tota"}) {
    const auto r = f.run(test::request("doc", prefix + typed, suffix, 4));
    REQUIRE(r.last().kind == CompletionEvent::Kind::kDone);
    const Timings& t = r.last().timings;
    INFO("typed " << typed << ": prefilled " << t.tokens_prefilled << ", moved " << t.tokens_moved);
    CHECK(t.tokens_prefilled <= 8);  // the retokenized end of the prefix and the final marker
    if (t.tokens_moved > 0) ++moved_requests;
    CHECK(t.tokens_moved >= static_cast<int>(suffix.size()) / 2);  // the suffix (byte-level vocabulary)
    CHECK(t.tokens_reused >= t.tokens_moved);
  }
  CHECK(moved_requests == 4);

  // Off: the same keystroke prefills the whole suffix again.
  f.engine->set_chunk_reuse_min(0);
  const auto r = f.run(test::request("doc", prefix + "total", suffix, 4));
  CHECK(r.last().timings.tokens_moved == 0);
  CHECK(r.last().timings.tokens_prefilled > static_cast<int>(suffix.size()) / 2);
}

TEST_CASE("shift_keys over a Q8_0 key cache: the moved keys are quantized again, within two steps", "[chunk_reuse]") {
  // The same check with 8-bit keys: each moved key is read as d * q (off by up to half a
  // step d = max |k| / 127 per dimension), rotated (which mixes two dimensions: up to 0.71
  // d) and quantized again (another half step), while the key computed at the later
  // position is off by half a step itself: 1.71 steps at most, so within 2.
  test::TempDir dir;
  SyntheticModelSpec spec;
  spec.architecture = "qwen2";
  spec.rope_freq_base = 1e6f;
  spec.head_dim = 32;  // whole 32-dimension blocks
  REQUIRE(write_synthetic_model(spec, dir / "m.gguf").ok());
  auto model = Model::load(dir / "m.gguf");
  REQUIRE(model.ok());
  ThreadPool pool(2);
  Forward fwd(**model, pool);
  auto a = KvCache::create((*model)->config(), 64, KvType::Q8_0);
  auto b = KvCache::create((*model)->config(), 64, KvType::Q8_0);
  REQUIRE((a.ok() && b.ok()));
  const std::vector<int32_t> tokens = {72, 101, 108, 108, 111, 32, 119, 111, 114, 108, 100};
  std::vector<int32_t> shifted = {10, 10, 10};
  shifted.insert(shifted.end(), tokens.begin(), tokens.end());
  std::vector<float> logits;
  REQUIRE(fwd.run(tokens, *a, LogitsFor::kNone, logits).ok());
  REQUIRE(fwd.run(shifted, *b, LogitsFor::kNone, logits).ok());
  const auto& c = (*model)->config();
  const int n = static_cast<int>(tokens.size());
  std::vector<float> before(c.head_dim_k);
  for (uint32_t i = 0; i < c.head_dim_k; ++i) before[i] = a->key(0, 0, 0, i);
  fwd.shift_keys(*a, 0, n, 3);
  double worst_steps = 0, moved = 0;
  for (uint32_t h = 0; h < c.n_head_kv; ++h)
    for (int p = 0; p < n; ++p) {
      double amax = 0;
      for (uint32_t i = 0; i < c.head_dim_k; ++i) amax = std::max<double>(amax, std::fabs(b->key(0, h, p + 3, i)));
      const double step = amax / 127;
      REQUIRE(step > 0);
      for (uint32_t i = 0; i < c.head_dim_k; ++i)
        worst_steps = std::max(worst_steps, std::fabs(a->key(0, h, p, i) - b->key(0, h, p + 3, i)) / step);
    }
  for (uint32_t i = 0; i < c.head_dim_k; ++i) moved = std::max<double>(moved, std::fabs(before[i] - a->key(0, 0, 0, i)));
  std::printf("q8_0 keys moved by 3: worst difference from keys computed there %.2f quantization steps\n", worst_steps);
  CHECK(worst_steps <= 2.0);
  CHECK(moved > 1e-2);  // the rotation really changed the keys
}
