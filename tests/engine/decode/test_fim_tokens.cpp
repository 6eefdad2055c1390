// FIM token discovery: metadata ids, else known names per family; a clear error otherwise.
#include <catch2/catch.hpp>

#include "engine/decode/fim_tokens.h"
#include "engine/gguf/gguf.h"
#include "tests/support/fixtures/synthetic_model.h"
#include "engine/tokenizer/tokenizer_gguf.h"
#include "tests/support/testing.h"

using namespace wafer;

namespace {

Tokenizer load(const std::string& relative) {
  Result<GgufFile> f = GgufFile::open(test::require_testdata(relative));
  REQUIRE(f.ok());
  Result<Tokenizer> t = tokenizer_from_gguf(*f);
  REQUIRE(t.ok());
  return std::move(*t);
}

}  // namespace

TEST_CASE("fim: Qwen2.5 tokens by name", "[fim][testdata]") {
  Tokenizer t = load("reference/tiny-qwen2-q8_0.gguf");
  Result<FimTokens> f = find_fim_tokens(t);
  REQUIRE(f.ok());
  CHECK(f->family == "qwen");
  CHECK(f->prefix == 151659);
  CHECK(f->middle == 151660);
  CHECK(f->suffix == 151661);
  CHECK(f->pad == 151662);
  CHECK(f->repo == 151663);
  CHECK(f->file_sep == 151664);
  for (TokenId id : {151643, 151645, 151662, 151663, 151664})  // <|endoftext|> <|im_end|> pad repo file_sep
    CHECK(std::binary_search(f->end_of_generation.begin(), f->end_of_generation.end(), id));
  CHECK(describe_fim_tokens(t, *f).find("prefix=<|fim_prefix|>(151659)") != std::string::npos);
}

TEST_CASE("fim: StarCoder and DeepSeek-Coder names", "[fim][testdata]") {
  Tokenizer sc = load("tokenizer/ggml-vocab-starcoder.gguf");
  Result<FimTokens> f = find_fim_tokens(sc);
  REQUIRE(f.ok());
  CHECK(f->family == "starcoder");
  CHECK(f->prefix == 1);
  CHECK(f->middle == 2);
  CHECK(f->suffix == 3);
  CHECK(f->pad == 4);
  Tokenizer ds = load("tokenizer/ggml-vocab-deepseek-coder.gguf");
  f = find_fim_tokens(ds);
  REQUIRE(f.ok());
  CHECK(f->family == "deepseek");
  CHECK(f->prefix == 32016);
  CHECK(f->suffix == 32015);
  CHECK(f->middle == 32017);
  CHECK(std::binary_search(f->end_of_generation.begin(), f->end_of_generation.end(), 32014));  // EOS
}

TEST_CASE("fim: a model without FIM tokens is an error", "[fim][testdata]") {
  for (const char* vocab : {"tokenizer/ggml-vocab-gpt-2.gguf", "tokenizer/ggml-vocab-llama-spm.gguf"}) {
    Result<FimTokens> f = find_fim_tokens(load(vocab));
    REQUIRE_FALSE(f.ok());
    CHECK(f.error().message.find("no fill-in-the-middle tokens") != std::string::npos);
  }
}

TEST_CASE("fim: CodeLlama-style SentencePiece names", "[fim]") {
  VocabData d;
  d.model = "llama";
  d.tokens = {"<unk>", "<s>", "</s>", "\xe2\x96\x81<PRE>", "\xe2\x96\x81<SUF>", "\xe2\x96\x81<MID>", "\xe2\x96\x81<EOT>", "a"};
  d.token_types = {2, 3, 3, 1, 1, 1, 1, 1};
  Result<Tokenizer> t = Tokenizer::create(d);
  REQUIRE(t.ok());
  Result<FimTokens> f = find_fim_tokens(*t);
  REQUIRE(f.ok());
  CHECK(f->family == "codellama");
  CHECK(f->prefix == 3);
  CHECK(f->suffix == 4);
  CHECK(f->middle == 5);
  CHECK(std::binary_search(f->end_of_generation.begin(), f->end_of_generation.end(), 6));  // ▁<EOT>
  CHECK(std::binary_search(f->end_of_generation.begin(), f->end_of_generation.end(), 2));  // </s>
}

TEST_CASE("fim: metadata ids win over names", "[fim]") {
  test::TempDir dir;
  SyntheticModelSpec spec;
  REQUIRE(write_synthetic_model(spec, dir / "a.gguf").ok());
  spec.fim_metadata = false;
  REQUIRE(write_synthetic_model(spec, dir / "b.gguf").ok());
  Result<GgufFile> a = GgufFile::open(dir / "a.gguf"), b = GgufFile::open(dir / "b.gguf");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  Result<Tokenizer> ta = tokenizer_from_gguf(*a), tb = tokenizer_from_gguf(*b);
  REQUIRE(ta.ok());
  REQUIRE(tb.ok());
  Result<FimTokens> fa = find_fim_tokens(*ta), fb = find_fim_tokens(*tb);
  REQUIRE(fa.ok());
  REQUIRE(fb.ok());  // found by name
  CHECK(fa->prefix == fb->prefix);
  CHECK(fa->middle == fb->middle);
  CHECK(ta->token_text(fa->prefix) == "<|fim_prefix|>");
}
