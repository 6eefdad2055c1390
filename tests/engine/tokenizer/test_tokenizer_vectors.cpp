// Conformance: llama.cpp's tokenizer test vectors (../shared/testdata/tokenizer/*.inp/.out,
// produced with the Hugging Face tokenizers) must give exactly the expected ids. One test
// case per vocabulary; skipped when the shared data is absent.
#include <catch2/catch.hpp>

#include <sstream>

#include "engine/gguf/gguf.h"
#include "engine/tokenizer/tokenizer_gguf.h"
#include "tests/support/testing.h"

namespace {

using namespace wafer;

struct Vector {
  std::string text;
  std::vector<TokenId> ids;
};

std::vector<Vector> load_vectors(const std::filesystem::path& inp, const std::filesystem::path& out) {
  const std::string sep = "\n__ggml_vocab_test__\n";
  std::string in = test::read_file(inp);
  std::vector<std::string> texts;
  for (size_t pos = 0; pos < in.size();) {
    size_t e = in.find(sep, pos);
    if (e == std::string::npos) break;
    texts.push_back(in.substr(pos, e - pos));
    pos = e + sep.size();
  }
  std::istringstream lines(test::read_file(out));
  std::vector<Vector> v;
  std::string line;
  for (const std::string& t : texts) {
    REQUIRE(std::getline(lines, line));
    Vector x{t, {}};
    std::istringstream ids(line);
    long id;
    while (ids >> id) x.ids.push_back(TokenId(id));
    v.push_back(std::move(x));
  }
  return v;
}

// Runs every vector of `vocab` against the tokenizer of `gguf`; returns "passed/total".
void check_vocabulary(const std::string& vocab, const std::string& gguf = "") {
  auto inp = test::require_testdata("tokenizer/ggml-vocab-" + vocab + ".gguf.inp");
  auto out = test::require_testdata("tokenizer/ggml-vocab-" + vocab + ".gguf.out");
  auto model = test::require_testdata(gguf.empty() ? "tokenizer/ggml-vocab-" + vocab + ".gguf" : gguf);
  Result<GgufFile> file = GgufFile::open(model);
  REQUIRE(file.ok());
  Result<Tokenizer> tok = tokenizer_from_gguf(*file);
  INFO((tok ? "" : tok.error().message));
  REQUIRE(tok.ok());
  std::vector<Vector> vectors = load_vectors(inp, out);
  REQUIRE(vectors.size() >= 40);
  size_t passed = 0;
  for (const Vector& v : vectors) {
    std::vector<TokenId> got = tok->encode(v.text);
    if (got == v.ids) {
      ++passed;
      continue;
    }
    std::ostringstream msg;
    msg << vocab << ": text '" << escape_piece(v.text) << "'\n  want";
    for (TokenId id : v.ids) msg << ' ' << id;
    msg << "\n  got ";
    for (TokenId id : got) msg << ' ' << id;
    UNSCOPED_INFO(msg.str());
  }
  std::printf("%s %zu/%zu\n", vocab.c_str(), passed, vectors.size());
  CHECK(passed == vectors.size());
}

}  // namespace

TEST_CASE("tokenizer vectors: qwen2", "[tokenizer][vectors]") {
  check_vocabulary("qwen2", "reference/tiny-qwen2-q8_0.gguf");
}
TEST_CASE("tokenizer vectors: deepseek-coder", "[tokenizer][vectors]") { check_vocabulary("deepseek-coder"); }
TEST_CASE("tokenizer vectors: deepseek-llm", "[tokenizer][vectors]") { check_vocabulary("deepseek-llm"); }
TEST_CASE("tokenizer vectors: starcoder", "[tokenizer][vectors]") { check_vocabulary("starcoder"); }
TEST_CASE("tokenizer vectors: gpt-2", "[tokenizer][vectors]") { check_vocabulary("gpt-2"); }
TEST_CASE("tokenizer vectors: refact", "[tokenizer][vectors]") { check_vocabulary("refact"); }
TEST_CASE("tokenizer vectors: falcon", "[tokenizer][vectors]") { check_vocabulary("falcon"); }
TEST_CASE("tokenizer vectors: mpt", "[tokenizer][vectors]") { check_vocabulary("mpt"); }
TEST_CASE("tokenizer vectors: llama-spm", "[tokenizer][vectors]") { check_vocabulary("llama-spm"); }
TEST_CASE("tokenizer vectors: phi-3", "[tokenizer][vectors]") { check_vocabulary("phi-3"); }
