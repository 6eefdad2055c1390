// The confidence gate's threshold a model file carries (wafer.min_confidence).
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <functional>

#include "engine/model/gate_threshold.h"
#include "tests/support/gguf_build.h"
#include "tests/support/testing.h"

using namespace wafer;

TEST_CASE("gate threshold: read from wafer.min_confidence when it is a probability above 0", "[gate_threshold]") {
  auto threshold = [](std::function<void(GgufWriter&)> add) {
    return read_built_gguf<float>(add, model_min_confidence);
  };
  CHECK(threshold([](GgufWriter&) {}) == -1.0f);
  CHECK(threshold([](GgufWriter& w) { w.add_f32(kMinConfidenceKey, 0.75f); }) == 0.75f);
  CHECK(threshold([](GgufWriter& w) { w.add_f64(kMinConfidenceKey, 1.0); }) == 1.0f);
  CHECK(threshold([](GgufWriter& w) { w.add_f32(kMinConfidenceKey, 0.0f); }) == -1.0f);
  CHECK(threshold([](GgufWriter& w) { w.add_f32(kMinConfidenceKey, 1.5f); }) == -1.0f);
  CHECK(threshold([](GgufWriter& w) { w.add_f32(kMinConfidenceKey, -0.5f); }) == -1.0f);
  CHECK(threshold([](GgufWriter& w) { w.add_f32(kMinConfidenceKey, NAN); }) == -1.0f);
  CHECK(threshold([](GgufWriter& w) { w.add_string(kMinConfidenceKey, "0.75"); }) == -1.0f);
}

TEST_CASE("gate threshold: the bundled model carries its calibrated one", "[gate_threshold]") {
  auto file = GgufFile::open(std::filesystem::path(__FILE__).parent_path() / ".." / ".." / ".." / "models" / "wafer-tiny-code-q8_0.gguf");
  REQUIRE(file.ok());
  CHECK(model_min_confidence(*file) == 0.35f);
}
