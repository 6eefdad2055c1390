// Test helper (header-only): a tiny random model (64 tokens, no tokenizer worth the name)
// loaded with a two-thread pool, for tests that drive sessions and forward passes directly.
#pragma once

#include <catch2/catch.hpp>

#include <memory>

#include "engine/decode/session.h"
#include "tests/engine/model_files.h"
#include "tests/support/testing.h"

namespace wafer::test {

struct TinyModel {
  TempDir dir;
  std::unique_ptr<Model> model;
  ThreadPool pool{2};
  TinyModel() {
    TestModelSpec spec;
    spec.n_vocab = 64;
    REQUIRE(write_test_model(spec, dir / "m.gguf").ok());
    auto m = Model::load(dir / "m.gguf");
    REQUIRE(m.ok());
    model = std::move(*m);
  }
  Session session(int n_ctx = 64) {
    auto s = Session::create(*model, pool, n_ctx);
    REQUIRE(s.ok());
    return std::move(*s);
  }
};

}  // namespace wafer::test
