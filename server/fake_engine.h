// A scripted, deterministic Engine for tests and for exercising the daemon without a
// model (`wafer lsp --fake-engine SCRIPT`, a test-only option). It streams a fixed text
// in chunks with scripted latency, honours cancel flags, max_tokens, stop strings and
// should_stop, and can hold every job at a latch until the test releases it.
//
// Script (JSON): {"text": "...",                 default completion
//                 "rules": [{"prefix_ends_with": "def f(", "text": "x):"}],  first match wins
//                 "sampled": ["a", "b"],         temperature > 0: sampled[seed % size] instead
//                 "echo_prefix_tail": 0,         >0: append the last N bytes of the prefix
//                 "chunk_bytes": 4,              bytes per streamed "token" (UTF-8 safe)
//                 "first_token_ms": 0, "token_ms": 0,
//                 "has_fim": true, "name": "fake", "fail": ""}  non-empty: kError with it,
//                 "fail_after_chunks": 0}        ... after streaming this many chunks
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace wafer {

struct FakeScript {
  struct Rule {
    std::string prefix_ends_with;
    std::string text;
  };
  std::string text;
  std::vector<Rule> rules;
  std::vector<std::string> sampled;
  size_t echo_prefix_tail = 0;
  size_t chunk_bytes = 4;
  double first_token_ms = 0;
  double token_ms = 0;
  bool has_fim = true;
  std::string name = "fake";
  std::string fail;
  size_t fail_after_chunks = 0;
};

Result<FakeScript> parse_fake_script(std::string_view json_text);
Result<FakeScript> load_fake_script(const std::string& path);

class FakeEngine : public Engine {
 public:
  explicit FakeEngine(FakeScript script);
  const ModelInfo& info() const override { return info_; }
  void complete(const CompletionRequest& request, const CompletionCallback& on_event) override;

  // Test controls: with hold(true), each complete() waits (cancellably) until release().
  void hold(bool on);
  void release();
  // Blocks the caller until `count` complete() calls have reached the latch (for tests);
  // false if that did not happen within 10 s, so a broken test fails instead of hanging.
  bool wait_until_held(int count = 1);
  // How many complete() calls have reached the latch so far.
  int held() const;
  int calls() const;
  CompletionRequest last_request() const;

 private:
  FakeScript script_;
  ModelInfo info_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool hold_ = false;
  int releases_ = 0, held_ = 0, calls_ = 0;
  CompletionRequest last_;
};

}  // namespace wafer
