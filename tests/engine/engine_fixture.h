// Test helper (header-only): a tiny synthetic FIM model on disk and an in-process engine
// over it, plus a recorder of the events one complete() call streams.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "engine/engine_local.h"
#include "tests/support/fixtures/synthetic_model.h"
#include "tests/support/testing.h"

namespace wafer::test {

// Everything one complete() call reported.
struct Recorded {
  std::vector<CompletionEvent> events;
  std::string streamed;  // the kText deltas concatenated
  int finals = 0;        // kDone + kError events
  const CompletionEvent& last() const { return events.back(); }
  CompletionCallback callback() {
    return [this](const CompletionEvent& e) {
      events.push_back(e);
      if (e.kind == CompletionEvent::Kind::kText) streamed += e.text;
      else ++finals;
    };
  }
};

struct EngineFixture {
  TempDir dir;
  std::filesystem::path path;
  std::unique_ptr<LocalEngine> engine;

  explicit EngineFixture(EngineOptions options = {}, SyntheticModelSpec spec = {}) {
    spec.context_length = 2048;
    path = dir / "model.gguf";
    REQUIRE(write_synthetic_model(spec, path).ok());
    options.model_path = path.string();
    if (options.threads == 0) options.threads = 2;
    if (options.context_length == 4096) options.context_length = 1024;
    auto e = LocalEngine::load(options);
    REQUIRE(e.ok());
    engine = std::move(*e);
  }

  Recorded run(const CompletionRequest& request) {
    Recorded r;
    engine->complete(request, r.callback());
    REQUIRE(r.finals == 1);
    REQUIRE(r.last().kind != CompletionEvent::Kind::kText);
    return r;
  }
};

inline CompletionRequest request(std::string key, std::string prefix, std::string suffix, int max_tokens = 8) {
  CompletionRequest r;
  r.session_key = std::move(key);
  r.prefix = std::move(prefix);
  r.suffix = std::move(suffix);
  r.max_tokens = max_tokens;
  return r;
}

}  // namespace wafer::test
