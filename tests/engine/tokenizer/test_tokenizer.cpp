// Tokenizer behaviour beyond the conformance vectors: lossless round trips over real source
// files, random bytes and invalid UTF-8; special-token parsing; BOS/EOS; streaming decode.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <random>

#include "engine/gguf/gguf.h"
#include "tests/support/fixtures/synthetic_model.h"
#include "engine/tokenizer/tokenizer_gguf.h"
#include "engine/tokenizer/unicode.h"
#include "tests/support/testing.h"

namespace {

using namespace wafer;
namespace fs = std::filesystem;

Tokenizer load(const std::string& relative) {
  auto path = test::require_testdata(relative);
  Result<GgufFile> f = GgufFile::open(path);
  REQUIRE(f.ok());
  Result<Tokenizer> t = tokenizer_from_gguf(*f);
  REQUIRE(t.ok());
  return std::move(*t);
}

Tokenizer qwen2() { return load("reference/tiny-qwen2-q8_0.gguf"); }
Tokenizer llama_spm() { return load("tokenizer/ggml-vocab-llama-spm.gguf"); }

// A deterministic sample of source files in several languages that every Debian machine
// with python3 has: every 25th Python stdlib module and every 8th system header, sorted.
std::vector<fs::path> source_sample() {
  std::vector<fs::path> out;
  auto take = [&](const fs::path& dir, const std::string& ext, size_t every) {
    std::vector<fs::path> all;
    std::error_code ec;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ext) all.push_back(it->path());
    std::sort(all.begin(), all.end());
    for (size_t i = 0; i < all.size(); i += every) out.push_back(all[i]);
  };
  take("/usr/lib/python3.11", ".py", 25);
  take("/usr/include", ".h", 8);
  return out;
}


std::vector<std::string> hostile_strings() {
  std::vector<std::string> v = {"\xff", "\xc3", "a\xc3", "\xe2\x82", "\xe2\x82x", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                                "\xc0\xaf", "\x80\x80\x80", "\xf0\x9f\xa6", "\xf8\x88\x80\x80\x80", std::string("\0a\0", 3),
                                "  \t\n\r\x0b\x0c  ", "'s'S'll'LL", "\xe2\x80\xa8\xc2\x85\xc2\xa0\xe3\x80\x80x"};
  std::mt19937 rng(12345);
  for (int i = 0; i < 200; ++i) {
    std::string s(rng() % 300, '\0');
    for (char& c : s) c = char(rng() & 0xff);
    v.push_back(s);
  }
  return v;
}

}  // namespace

TEST_CASE("tokenizer: decode(encode(text)) == text over source files", "[tokenizer][testdata]") {
  Tokenizer bpe = qwen2();
  Tokenizer spm = llama_spm();
  std::vector<fs::path> files = source_sample();
  REQUIRE(files.size() >= 20);
  size_t bytes = 0;
  for (const fs::path& p : files) {
    std::string text = test::read_file(p);
    bytes += text.size();
    INFO(p.string());
    CHECK(bpe.decode(bpe.encode(text)) == text);
    // SentencePiece spells spaces as U+2581, so text containing that character itself
    // cannot round-trip (the same holds for the original tokenizer).
    if (text.find("\xe2\x96\x81") == std::string::npos) CHECK(spm.decode(spm.encode(text)) == text);
  }
  std::printf("round trip: %zu files, %zu bytes\n", files.size(), bytes);
}

TEST_CASE("tokenizer: random bytes and invalid UTF-8 round-trip", "[tokenizer][testdata]") {
  Tokenizer bpe = qwen2();
  Tokenizer spm = llama_spm();
  for (const std::string& s : hostile_strings()) {
    INFO(escape_piece(s));
    std::vector<TokenId> ids = bpe.encode(s);
    for (TokenId id : ids) REQUIRE(bpe.valid(id));
    CHECK(bpe.decode(ids) == s);
    if (s.find("\xe2\x96\x81") == std::string::npos) CHECK(spm.decode(spm.encode(s)) == s);
  }
}

TEST_CASE("tokenizer: special tokens are parsed only when asked", "[tokenizer][testdata]") {
  Tokenizer t = qwen2();
  const TokenId fim_prefix = t.find_token("<|fim_prefix|>");
  REQUIRE(fim_prefix == 151659);
  std::string text = "x = '<|fim_prefix|>'<|endoftext|>";
  std::vector<TokenId> plain = t.encode(text);
  CHECK(std::find(plain.begin(), plain.end(), fim_prefix) == plain.end());
  CHECK(std::find(plain.begin(), plain.end(), 151643) == plain.end());
  CHECK(t.decode(plain) == text);
  std::vector<TokenId> parsed = t.encode(text, {.add_special = false, .parse_special = true});
  CHECK(std::count(parsed.begin(), parsed.end(), fim_prefix) == 1);
  CHECK(parsed.back() == 151643);
  // Control tokens decode to nothing unless asked.
  CHECK(t.decode(parsed) == "x = ''");
  CHECK(t.decode(parsed, {.render_special = true}) == text);
  CHECK(t.is_eog(151643));
  CHECK_FALSE(t.is_eog(fim_prefix));
}

TEST_CASE("tokenizer: DeepSeek's FIM tokens are USER_DEFINED in the file but not injectable", "[tokenizer][testdata]") {
  Tokenizer t = load("tokenizer/ggml-vocab-deepseek-coder.gguf");
  TokenId begin = t.find_token("<｜fim▁begin｜>");
  REQUIRE(begin == 32016);
  CHECK(t.is_control(begin));  // promoted, as llama.cpp does
  std::vector<TokenId> ids = t.encode("<｜fim▁begin｜>");
  CHECK(std::find(ids.begin(), ids.end(), begin) == ids.end());
  CHECK(t.encode("<｜fim▁begin｜>", {.parse_special = true}) == std::vector<TokenId>{begin});
}

TEST_CASE("tokenizer: BOS/EOS follow the metadata", "[tokenizer][testdata]") {
  Tokenizer spm = llama_spm();
  CHECK(spm.add_bos());
  CHECK_FALSE(spm.add_eos());
  std::vector<TokenId> ids = spm.encode("Hello world", {.add_special = true});
  REQUIRE(ids.size() >= 2);
  CHECK(ids.front() == 1);
  CHECK(spm.encode("Hello world") == std::vector<TokenId>(ids.begin() + 1, ids.end()));
  CHECK(spm.decode(ids) == "Hello world");

  Tokenizer bpe = qwen2();
  CHECK_FALSE(bpe.add_bos());
  CHECK(bpe.encode("Hello", {.add_special = true}) == bpe.encode("Hello"));
  CHECK(bpe.special().eos == 151643);
}

TEST_CASE("tokenizer: SentencePiece byte fallback and the leading space", "[tokenizer][testdata]") {
  Tokenizer t = llama_spm();
  // A character outside the vocabulary becomes its UTF-8 bytes as <0xNN> tokens.
  std::vector<TokenId> ids = t.encode("\xf0\x9f\xa6\x99");  // 🦙
  REQUIRE(ids.size() == 5);  // ▁ + 4 bytes
  CHECK(t.token_text(ids[1]) == "<0xF0>");
  CHECK(t.token_text(ids[4]) == "<0x99>");
  CHECK(t.token_bytes(ids[1]) == "\xf0");
  CHECK(t.token_text(t.encode("Hello")[0]) == "\xe2\x96\x81Hello");
  CHECK(t.decode(t.encode(" Hello")) == " Hello");
  CHECK(t.decode(t.encode("Hello"), {.strip_space_prefix = false}) == " Hello");
}

TEST_CASE("stream decoder: holds back characters split across tokens", "[tokenizer][testdata]") {
  Tokenizer t = qwen2();
  // Byte-level tokens of 🦙 (F0 9F A6 99), one byte each.
  std::vector<TokenId> bytes;
  for (unsigned char b : std::string("\xf0\x9f\xa6\x99")) {
    TokenId id = t.find_token(byte_to_bpe_char(b));
    REQUIRE(id != kNoToken);
    bytes.push_back(id);
  }
  StreamDecoder d(t);
  CHECK(d.push(t.find_token("a")) == "a");
  CHECK(d.push(bytes[0]) == "");
  CHECK(d.push(bytes[1]) == "");
  CHECK(d.push(bytes[2]) == "");
  CHECK(d.pending_bytes() == 3);
  CHECK(d.push(bytes[3]) == "\xf0\x9f\xa6\x99");
  CHECK(d.pending_bytes() == 0);
  // A lead byte followed by a non-continuation: U+FFFD, then the byte after it.
  CHECK(d.push(bytes[0]) == "");
  CHECK(d.push(t.find_token("b")) == "\xef\xbf\xbd" "b");
  // An unfinished character at the end of the stream.
  CHECK(d.push(bytes[0]) == "");
  CHECK(d.finish() == "\xef\xbf\xbd");

  // Real text: every piece is valid UTF-8 and the pieces add up to the text.
  std::string text = "héllo wörld — 世界 🦙🚀 naïve café ✅ \xe2\x80\x8d end";
  std::vector<TokenId> ids = t.encode(text);
  StreamDecoder s(t);
  std::string joined;
  for (TokenId id : ids) {
    std::string piece = s.push(id);
    CHECK(is_valid_utf8(piece));
    joined += piece;
  }
  joined += s.finish();
  CHECK(joined == text);
}

TEST_CASE("tokenizer: a synthetic model's vocabulary works without the shared data", "[tokenizer]") {
  test::TempDir dir;
  SyntheticModelSpec spec;
  spec.architecture = "qwen2";
  REQUIRE(write_synthetic_model(spec, dir / "m.gguf").ok());
  Result<GgufFile> f = GgufFile::open(dir / "m.gguf");
  REQUIRE(f.ok());
  Result<Tokenizer> t = tokenizer_from_gguf(*f);
  REQUIRE(t.ok());
  CHECK(t->kind() == TokenizerKind::ByteLevelBpe);
  CHECK(describe_tokenizer(*t).find("pre qwen2") != std::string::npos);
  std::string code = "def f(x):\n    return x  # ok\n";
  std::vector<TokenId> ids = t->encode(code);
  CHECK(ids.size() < code.size());  // the merges (spaces, def, return) apply
  CHECK(t->find_token("def") != kNoToken);
  CHECK(std::find(ids.begin(), ids.end(), t->find_token("def")) != ids.end());
  CHECK(t->decode(ids) == code);
}

TEST_CASE("tokenizer: bad vocabularies are errors", "[tokenizer]") {
  VocabData d;
  d.model = "bert";
  d.tokens = {"a"};
  CHECK_FALSE(Tokenizer::create(d).ok());
  d.model = "gpt2";
  d.pre = "no-such-pre";
  CHECK(Tokenizer::create(d).error().message.find("no-such-pre") != std::string::npos);
  d.pre = "qwen2";
  d.tokens = {"a", "a"};
  CHECK(Tokenizer::create(d).error().message.find("duplicate") != std::string::npos);
  d.tokens = {"a", "b"};
  d.token_types = {1};
  CHECK_FALSE(Tokenizer::create(d).ok());
  d.token_types.clear();
  d.tokens.clear();
  CHECK_FALSE(Tokenizer::create(d).ok());
}

TEST_CASE("escape_piece", "[tokenizer]") {
  CHECK(escape_piece("a\nb\t\\") == "a\\nb\\t\\\\");
  CHECK(escape_piece("\xff\x01") == "\\xff\\x01");
  CHECK(escape_piece("é") == "é");
}
