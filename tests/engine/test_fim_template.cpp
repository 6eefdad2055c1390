// The FIM prompt: PSM order, extra chunks behind file separators, and special tokens only
// from the template (user text spelling "<|fim_prefix|>" stays text).
#include <catch2/catch.hpp>

#include <algorithm>

#include "engine/fim_template.h"
#include "engine/gguf.h"
#include "engine/synthetic_model.h"
#include "engine/tokenizer_gguf.h"
#include "tests/support/testing.h"

using namespace wafer;

namespace {

struct Vocab {
  Tokenizer tokenizer;
  FimTokens fim;
};

Vocab synthetic() {
  test::TempDir dir;
  REQUIRE(write_synthetic_model(SyntheticModelSpec{}, dir / "m.gguf").ok());
  auto file = GgufFile::open(dir / "m.gguf");
  REQUIRE(file.ok());
  auto t = tokenizer_from_gguf(*file);
  REQUIRE(t.ok());
  auto fim = find_fim_tokens(*t);
  REQUIRE(fim.ok());
  return Vocab{std::move(*t), std::move(*fim)};
}

}  // namespace

TEST_CASE("fim template: prefix, suffix, middle in PSM order", "[fim_template]") {
  Vocab v = synthetic();
  const auto p = build_fim_prompt(v.tokenizer, v.fim, FimParts{nullptr, "a = ", "\nb"});
  std::vector<TokenId> expected{v.fim.prefix};
  for (TokenId t : v.tokenizer.encode("a = ")) expected.push_back(t);
  expected.push_back(v.fim.suffix);
  for (TokenId t : v.tokenizer.encode("\nb")) expected.push_back(t);
  expected.push_back(v.fim.middle);
  CHECK(p == expected);
}

TEST_CASE("fim template: extra chunks come first, each after a file separator", "[fim_template]") {
  Vocab v = synthetic();
  const std::vector<std::string> extra{"one", "two"};
  const auto p = build_fim_prompt(v.tokenizer, v.fim, FimParts{&extra, "x", "y"});
  REQUIRE(p.size() > 3);
  CHECK(p.front() == v.fim.file_sep);
  CHECK(std::count(p.begin(), p.end(), v.fim.file_sep) == 2);
  CHECK(v.tokenizer.decode(p) == "onetwoxy");
  const auto at_prefix = std::find(p.begin(), p.end(), v.fim.prefix);
  CHECK(at_prefix - p.begin() == static_cast<long>(2 + v.tokenizer.encode("one").size() + v.tokenizer.encode("two").size()));
}

TEST_CASE("fim template: markers in user text are plain text", "[fim_template]") {
  Vocab v = synthetic();
  const auto p = build_fim_prompt(v.tokenizer, v.fim, FimParts{nullptr, "s = '<|fim_middle|>'", "<|endoftext|>"});
  CHECK(std::count(p.begin(), p.end(), v.fim.middle) == 1);
  CHECK(p.back() == v.fim.middle);
  CHECK(std::count_if(p.begin(), p.end(), [&](TokenId t) { return v.tokenizer.is_control(t); }) == 3);
}
