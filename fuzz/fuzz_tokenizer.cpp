// libFuzzer target for the tokenizers (run: bench/fuzz.sh fuzz_tokenizer SECONDS).
// The first input byte picks a mode, the rest is data:
//   modes 0-7: encode the data with one of the loaded tokenizers (with/without special-token
//     parsing and BOS/EOS) and check the invariants: every id is in the vocabulary,
//     decode(encode(x)) == x, streaming decode emits only valid UTF-8 and adds up to the
//     same text when that text is valid UTF-8;
//   mode 8: pre-tokenize with every pre-tokenizer; the pieces must cover the input exactly;
//   mode 9: build a vocabulary from the data (tokens and merges separated by NUL bytes) and
//     tokenize a fixed text with it: construction must never crash on odd vocabularies.
// Tokenizers: a synthetic byte-level vocabulary (always), plus the Qwen2, llama-spm and
// deepseek-coder vocabularies from the repository's tests/data when it is reachable from
// the current directory (or from $WAFER_TESTDATA).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/gguf/gguf.h"
#include "tests/support/fixtures/synthetic_model.h"
#include "engine/tokenizer/tokenizer_gguf.h"
#include "engine/tokenizer/unicode.h"

using namespace wafer;

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_tokenizer: invariant broken: %s\n", what);
  std::abort();
}

std::vector<Tokenizer>& tokenizers() {
  static std::vector<Tokenizer> all = [] {
    std::vector<Tokenizer> v;
    if (Result<SyntheticVocab> sv = synthetic_vocab(0)) {
      VocabData d;
      d.model = "gpt2";
      d.pre = "qwen2";
      d.tokens = sv->tokens;
      d.token_types = sv->token_types;
      d.merges = sv->merges;
      if (Result<Tokenizer> t = Tokenizer::create(d)) v.push_back(std::move(*t));
    }
    const char* env = std::getenv("WAFER_TESTDATA");
    std::string dir = env ? env : "tests/data";
    for (const char* rel : {"/reference/tiny-qwen2-q8_0.gguf", "/tokenizer/ggml-vocab-llama-spm.gguf",
                            "/tokenizer/ggml-vocab-deepseek-coder.gguf"}) {
      Result<GgufFile> f = GgufFile::open(dir + rel);
      if (!f) continue;
      if (Result<Tokenizer> t = tokenizer_from_gguf(*f)) v.push_back(std::move(*t));
    }
    std::fprintf(stderr, "fuzz_tokenizer: %zu tokenizers\n", v.size());
    return v;
  }();
  return all;
}


// Some byte-level vocabularies have no plain token for the bytes that never occur in valid
// UTF-8 (DeepSeek-Coder's 'ÿ', 'õ', ... are USER_DEFINED tokens that decode as the
// character), so invalid UTF-8 cannot round-trip through them (nor through llama.cpp).
bool bytes_are_lossless(const Tokenizer& t) {
  if (t.kind() != TokenizerKind::ByteLevelBpe) return true;
  for (int b = 0; b < 256; ++b) {
    TokenId id = t.find_token(byte_to_bpe_char(uint8_t(b)));
    if (id == kNoToken || (t.token_attr(id) & (kAttrUserDefined | kAttrControl | kAttrUnknown))) return false;
  }
  return true;
}

void check_encode(const Tokenizer& t, std::string_view text, bool parse_special, bool add_special) {
  std::vector<TokenId> ids = t.encode(text, {.add_special = add_special, .parse_special = parse_special});
  for (TokenId id : ids)
    if (!t.valid(id)) fail("id outside the vocabulary");
  // SentencePiece writes spaces as U+2581, so that character cannot round-trip.
  const bool spm_marker = t.kind() == TokenizerKind::SentencePiece && text.find("\xe2\x96\x81") != std::string_view::npos;
  // After a special token SentencePiece prepends a space to the text that follows.
  const bool spm_special = t.kind() == TokenizerKind::SentencePiece && parse_special;
  const bool lossy_bytes = !bytes_are_lossless(t) && !is_valid_utf8(text);
  if (!add_special && !spm_marker && !spm_special && !lossy_bytes) {
    std::string back = t.decode(ids, {.render_special = parse_special});
    if (back != text) fail("decode(encode(text)) != text");
  }
  StreamDecoder stream(t, parse_special);
  std::string streamed;
  for (TokenId id : ids) {
    std::string piece = stream.push(id);
    if (!is_valid_utf8(piece)) fail("stream decoder emitted invalid UTF-8");
    streamed += piece;
  }
  streamed += stream.finish();
  std::string whole = t.decode(ids, {.render_special = parse_special, .strip_space_prefix = false});
  if (is_valid_utf8(whole) && streamed != whole) fail("streamed text differs from decode()");
}

void check_pretokenize(std::string_view text) {
  for (PreTokenizerKind k : {PreTokenizerKind::Default, PreTokenizerKind::Gpt2, PreTokenizerKind::Llama3,
                             PreTokenizerKind::Qwen2, PreTokenizerKind::Starcoder, PreTokenizerKind::DeepseekCoder,
                             PreTokenizerKind::DeepseekLlm, PreTokenizerKind::Falcon}) {
    std::vector<std::string_view> words;
    pretokenize(k, text, words);
    size_t pos = 0;
    for (std::string_view w : words) {
      if (w.empty() || w.data() != text.data() + pos) fail("pre-tokenizer pieces do not tile the input");
      pos += w.size();
    }
    if (pos != text.size()) fail("pre-tokenizer pieces do not cover the input");
  }
}

void check_vocabulary(std::string_view data) {
  VocabData d;
  d.model = (data.size() % 2) ? "llama" : "gpt2";
  d.pre = "qwen2";
  bool merges = false;
  size_t start = 0;
  for (size_t i = 0; i <= data.size(); ++i) {
    if (i == data.size() || data[i] == '\0') {
      std::string item(data.substr(start, i - start));
      if (item == "--") merges = true;
      else if (merges) d.merges.push_back(item);
      else d.tokens.push_back(item);
      start = i + 1;
    }
  }
  for (size_t i = 0; i < d.tokens.size(); ++i) d.token_types.push_back(int32_t(1 + (d.tokens[i].size() % 6)));
  Result<Tokenizer> t = Tokenizer::create(d);
  if (!t) return;  // duplicates, empty vocabularies: errors are fine
  std::vector<TokenId> ids = t->encode("Hello <s> world\n\t \xc3\xa9\xff", {.add_special = true, .parse_special = true});
  for (TokenId id : ids)
    if (!t->valid(id)) fail("id outside a fuzzed vocabulary");
  (void)t->decode(ids, {.render_special = true});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0] % 10;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  if (mode < 8) {
    std::vector<Tokenizer>& all = tokenizers();
    if (all.empty()) return 0;
    check_encode(all[(data[0] / 10) % all.size()], text, mode & 1, mode & 2);
  } else if (mode == 8) {
    check_pretokenize(text);
  } else {
    check_vocabulary(text);
  }
  return 0;
}
