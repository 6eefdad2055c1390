// Pre-tokenizers: the pieces of each family on characteristic inputs, and the invariant that
// pieces always cover the input exactly (any bytes).
#include <catch2/catch.hpp>

#include <random>

#include "engine/tokenizer/pretokenize.h"

using namespace wafer;

namespace {

std::vector<std::string> split(PreTokenizerKind kind, std::string_view text) {
  std::vector<std::string_view> words;
  pretokenize(kind, text, words);
  return {words.begin(), words.end()};
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("pretokenize: qwen2 splits digits, keeps a space before words, groups newlines", "[pretokenize]") {
  CHECK(split(PreTokenizerKind::Qwen2, "Hello world 123") == V{"Hello", " world", " ", "1", "2", "3"});
  CHECK(split(PreTokenizerKind::Qwen2, "x  = 1\n\n    y") == V{"x", " ", " =", " ", "1", "\n\n", "   ", " y"});
  CHECK(split(PreTokenizerKind::Qwen2, "I'VE it's") == V{"I", "'VE", " it", "'s"});
  CHECK(split(PreTokenizerKind::Qwen2, "a();\n") == V{"a", "();\n"});
}

TEST_CASE("pretokenize: llama3 groups digits by three", "[pretokenize]") {
  CHECK(split(PreTokenizerKind::Llama3, "1234567") == V{"123", "456", "7"});
}

TEST_CASE("pretokenize: gpt-2 is case-sensitive on contractions and attaches one space", "[pretokenize]") {
  CHECK(split(PreTokenizerKind::Gpt2, "I'VE it's  x") == V{"I", "'", "VE", " it", "'s", " ", " x"});
  CHECK(split(PreTokenizerKind::Gpt2, "a  \n") == V{"a", "  \n"});
}

TEST_CASE("pretokenize: starcoder splits every digit first", "[pretokenize]") {
  CHECK(split(PreTokenizerKind::Starcoder, "x12 y") == V{"x", "1", "2", " y"});
}

TEST_CASE("pretokenize: deepseek-coder passes", "[pretokenize]") {
  CHECK(split(PreTokenizerKind::DeepseekCoder, "foo.bar(1)\n") == V{"foo", ".", "bar", "(", "1", ")", "\n"});
  CHECK(split(PreTokenizerKind::DeepseekCoder, "我想 x") == V{"我想", " x"});
}

TEST_CASE("pretokenize: deepseek-llm keeps trailing white space apart", "[pretokenize]") {
  CHECK(split(PreTokenizerKind::DeepseekLlm, "ab  ") == V{"ab", "  "});
}

TEST_CASE("pretokenize: falcon splits digit triples", "[pretokenize]") {
  CHECK(split(PreTokenizerKind::Falcon, "12345") == V{"123", "45"});
}

TEST_CASE("pretokenize: pieces cover any input exactly", "[pretokenize]") {
  std::mt19937 rng(7);
  for (PreTokenizerKind k : {PreTokenizerKind::Default, PreTokenizerKind::Gpt2, PreTokenizerKind::Llama3,
                             PreTokenizerKind::Qwen2, PreTokenizerKind::Starcoder, PreTokenizerKind::DeepseekCoder,
                             PreTokenizerKind::DeepseekLlm, PreTokenizerKind::Falcon}) {
    for (int i = 0; i < 100; ++i) {
      std::string s(rng() % 200, '\0');
      for (char& c : s) c = char(i % 2 ? rng() & 0xff : " \n\tab1'.\xc3\xa9"[rng() % 12]);
      std::string joined;
      for (const std::string& w : split(k, s)) {
        CHECK_FALSE(w.empty());
        joined += w;
      }
      CHECK(joined == s);
    }
  }
}

TEST_CASE("pretokenize: names", "[pretokenize]") {
  CHECK(pretokenizer_from_name("qwen2")->kind == PreTokenizerKind::Qwen2);
  CHECK(pretokenizer_from_name("llama-bpe")->ignore_merges);
  CHECK(pretokenizer_from_name("")->kind == PreTokenizerKind::Default);
  CHECK(pretokenizer_from_name("smollm")->kind == PreTokenizerKind::Starcoder);
  CHECK_FALSE(pretokenizer_from_name("tekken").ok());
}
