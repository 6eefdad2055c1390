// Logits over part of the vocabulary (Forward::set_output_subset, a draft model's): the
// first ids through the packed output matrix give exactly the logits of a whole pass, the
// extra ids from the file's rows give them up to the activations' rounding, every other id
// is -infinity; for a tied and an untied output, the SIMD and the scalar backend, one row
// and every row of a batch.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/compute/forward.h"
#include "engine/model/model.h"
#include "tests/engine/model_files.h"
#include "tests/support/testing.h"

using namespace wafer;

TEST_CASE("forward: logits over the first ids and a few more", "[forward][draft_model]") {
  for (bool tied : {true, false}) {
    test::TestModelSpec spec;
    spec.arch = "qwen2";
    spec.matrix_type = TensorType::Q8_0;
    spec.embd_type = TensorType::Q8_0;
    spec.tied = tied;
    test::TempDir dir;
    REQUIRE(test::write_test_model(spec, dir / "m.gguf").ok());
    for (bool scalar : {false, true}) {
      INFO((tied ? "tied" : "untied") << (scalar ? ", scalar backend" : ", default backend"));
      auto m = scalar ? Model::load(dir / "m.gguf", kernels::scalar_backend()) : Model::load(dir / "m.gguf");
      REQUIRE(m.ok());
      ThreadPool pool(2);
      const std::vector<int32_t> tokens{3, 41, 7, 200, 9};
      const auto run = [&](const OutputSubset* subset, LogitsFor which) {
        auto kv = KvCache::create((*m)->config(), 16, KvType::F32);
        REQUIRE(kv.ok());
        Forward fwd(**m, pool);
        fwd.set_output_subset(subset);
        std::vector<float> logits;
        REQUIRE(fwd.run(tokens, *kv, which, logits).ok());
        return logits;
      };
      OutputSubset subset;
      subset.head = 40;  // whole panels: the first 48 ids
      subset.extra = {5, 100, 101, 250, 299};  // 5 is in the head already
      const size_t vocab = spec.n_vocab;
      for (LogitsFor which : {LogitsFor::kLast, LogitsFor::kAll}) {
        const std::vector<float> whole = run(nullptr, which), part = run(&subset, which);
        REQUIRE(part.size() == whole.size());
        double scale = 0;
        for (float v : whole) scale = std::max(scale, static_cast<double>(std::fabs(v)));
        REQUIRE(scale > 0.1);
        int infinite = 0;
        for (size_t row = 0; row < whole.size() / vocab; ++row)
          for (size_t id = 0; id < vocab; ++id) {
            const float w = whole[row * vocab + id], p = part[row * vocab + id];
            INFO("row " << row << " id " << id);
            const bool extra = std::find(subset.extra.begin(), subset.extra.end(), static_cast<int32_t>(id)) !=
                               subset.extra.end();
            if (id < 48) {
              CHECK(p == w);
            } else if (extra) {
              // Float weights against the kernel's Q8_0-rounded activations.
              CHECK(std::fabs(p - w) <= 0.02 * scale);
            } else {
              CHECK(p == -std::numeric_limits<float>::infinity());
              ++infinite;
            }
          }
        CHECK(infinite == static_cast<int>((whole.size() / vocab) * (vocab - 48 - 4)));
      }
    }
  }
}
