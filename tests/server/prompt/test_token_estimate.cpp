// The token estimate against the real Qwen2 tokenizer (the default model family) on real
// source files of several languages: within 15% on each file, and monotone in the text.
#include <catch2/catch.hpp>

#include <filesystem>

#include "engine/gguf/gguf.h"
#include "engine/tokenizer/tokenizer_gguf.h"
#include "server/prompt/token_estimate.h"
#include "tests/support/testing.h"

using namespace wafer;

TEST_CASE("token estimate: simple texts", "[token_estimate]") {
  CHECK(estimate_tokens("") == 0);
  CHECK(estimate_tokens("x") == 1);
  CHECK(estimate_tokens("return x") == 2);  // the space rides with the word
  CHECK(estimate_tokens("123") == 3);       // one token per digit (Qwen2 splits digits)
  CHECK(estimate_tokens("    return") == 2);
  CHECK(estimate_tokens("中文") == 2);
  CHECK(estimate_tokens("a\n\n") == 2);
  // Never fewer tokens for a longer text.
  std::string s = "def f(x):\n    return x + 1  # 中\n";
  size_t prev = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    size_t t = estimate_tokens(std::string_view(s).substr(0, i));
    CHECK(t + 1 >= prev);  // a trailing single space may merge into the next word
    prev = t;
  }
}

TEST_CASE("token estimate: close to the Qwen2 tokenizer on real code", "[token_estimate]") {
  auto vocab = test::require_testdata("reference/tiny-qwen2-q8_0.gguf");
  auto file = GgufFile::open(vocab);
  REQUIRE(file);
  auto tok = tokenizer_from_gguf(*file);
  REQUIRE(tok);
  // This file is tests/server/test_token_estimate.cpp: the checkout is two folders up.
  const std::filesystem::path root = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path().parent_path();
  size_t total_real = 0, total_est = 0;
  for (const char* rel : {"server/service/scheduler.cpp", "server/config/options.cpp", "engine/tokenizer/tokenizer.h", "grammars/registry.cpp",
                          "README.md", "tests/CMakeLists.txt", "tools/train/bpe.py", "scripts/setup.sh"}) {
    std::filesystem::path p = root / rel;
    if (!std::filesystem::exists(p)) continue;
    std::string text = test::read_file(p);
    size_t real = tok->encode(text).size();
    size_t est = estimate_tokens(text);
    INFO(rel << ": qwen2 " << real << " tokens, estimate " << est);
    CHECK(static_cast<double>(est) > 0.85 * static_cast<double>(real));
    CHECK(static_cast<double>(est) < 1.15 * static_cast<double>(real));
    total_real += real;
    total_est += est;
  }
  REQUIRE(total_real > 10000);
  WARN("qwen2 tokens " << total_real << ", estimate " << total_est);
}
