// StepProfile: a Forward with a profile attached charges each step of each run to it (the
// steps add up to no more than the wall time of the runs); detached, it records nothing.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "engine/compute/forward.h"
#include "engine/compute/kv_cache.h"
#include "engine/model/model.h"
#include "engine/compute/step_profile.h"
#include "tests/support/fixtures/synthetic_model.h"
#include "tests/support/testing.h"

using namespace wafer;

TEST_CASE("step profile: every step of the timed runs, within their wall time", "[forward]") {
  test::TempDir dir;
  REQUIRE(write_synthetic_model(SyntheticModelSpec{}, dir / "m.gguf").ok());
  auto model = Model::load(dir / "m.gguf");
  REQUIRE(model.ok());
  ThreadPool pool(2);
  Forward fwd(**model, pool);
  auto kv = KvCache::create((*model)->config(), 64);
  REQUIRE(kv.ok());
  std::vector<float> logits;
  const std::vector<int32_t> prompt = {1, 2, 3, 4, 5}, next = {6};

  StepProfile p;
  fwd.set_profile(&p);
  const auto t0 = std::chrono::steady_clock::now();
  REQUIRE(fwd.run(prompt, *kv, LogitsFor::kLast, logits).ok());
  REQUIRE(fwd.run(next, *kv, LogitsFor::kLast, logits).ok());
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(p.runs == 2);
  for (int s = 0; s < StepProfile::kSteps; ++s) {
    INFO(StepProfile::name(s));
    CHECK(p.seconds[s] > 0);
  }
  CHECK(p.total() <= wall);

  fwd.set_profile(nullptr);
  const StepProfile before = p;
  REQUIRE(fwd.run(next, *kv, LogitsFor::kLast, logits).ok());
  CHECK(p.runs == before.runs);
  CHECK(p.total() == before.total());
  CHECK(std::string(StepProfile::name(StepProfile::kAttention)) == "attention");
}
