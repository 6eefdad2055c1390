// Token healing: which tokens may be healed, the allowed set (index against a full scan, on
// the bundled model's vocabulary and on Qwen2.5's 151,936 tokens), the prompt losing the
// prefix's last token in every order, and whole runs of the engine on the bundled model
// checked against an independent decode loop (greedy and sampled), with stop strings and
// the stop callback seeing only the text after the cursor.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

#include "engine/engine_local.h"
#include "engine/decode/fim_template.h"
#include "engine/gguf/gguf.h"
#include "engine/decode/session.h"
#include "engine/decode/token_healing.h"
#include "engine/tokenizer/tokenizer_gguf.h"
#include "engine/tokenizer/unicode.h"
#include "tests/engine/engine_fixture.h"
#include "tests/support/testing.h"

using namespace wafer;

namespace {

std::filesystem::path bundled_model() {
  return std::filesystem::path(__FILE__).parent_path() / ".." / ".." / ".." / "models" / "wafer-tiny-code-q8_0.gguf";
}

Tokenizer load_tokenizer(const std::filesystem::path& path) {
  Result<GgufFile> f = GgufFile::open(path);
  REQUIRE(f.ok());
  Result<Tokenizer> t = tokenizer_from_gguf(*f);
  REQUIRE(t.ok());
  return std::move(*t);
}

std::vector<TokenId> sorted(std::vector<TokenId> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// The index and the scan agree on `rest`, and every member really reproduces it.
void check_allowed(const Tokenizer& tok, const TokenHealer& healer, std::string_view rest) {
  INFO("rest: " << escape_piece(rest));
  std::vector<TokenId> by_index, by_scan;
  healer.allowed(rest, by_index);
  allowed_by_scan(tok, rest, by_scan);
  const std::vector<TokenId> a = sorted(by_index), b = sorted(by_scan);
  CHECK(a == b);
  CHECK(std::adjacent_find(a.begin(), a.end()) == a.end());  // no id twice
  for (TokenId id : a) {
    const std::string_view bytes = tok.token_bytes(id);
    CHECK(!tok.is_control(id));
    CHECK(!bytes.empty());
    CHECK((bytes.starts_with(rest) || rest.starts_with(bytes)));
  }
}

// Some tokens' bytes as test rests: every step-th ordinary token that could be healed.
std::vector<std::string> sample_rests(const Tokenizer& tok, size_t step) {
  std::vector<std::string> rests;
  for (TokenId id = 0; static_cast<size_t>(id) < tok.n_vocab(); id += static_cast<TokenId>(step))
    if (!healable_bytes(tok, id).empty()) rests.emplace_back(healable_bytes(tok, id));
  for (const char* s : {"retu", "    ", "\n    ", "\n", "é", "self.", "zqzqzqzq", "(", "__init__"}) rests.emplace_back(s);
  return rests;
}

}  // namespace

TEST_CASE("token healing: which tokens can be healed", "[token_healing]") {
  const Tokenizer tok = load_tokenizer(bundled_model());
  const std::vector<TokenId> ret = tok.encode(" ret");
  REQUIRE(ret.size() == 1);
  CHECK(healable_bytes(tok, ret[0]) == " ret");
  CHECK(is_ordinary_token(tok, ret[0]));
  for (const char* special : {"<|fim_prefix|>", "<|fim_middle|>", "<|endoftext|>", "<|file_sep|>"}) {
    const TokenId id = tok.find_token(special);
    REQUIRE(id != kNoToken);
    CHECK(healable_bytes(tok, id).empty());
    CHECK_FALSE(is_ordinary_token(tok, id));
  }
  CHECK(healable_bytes(tok, kNoToken).empty());
  CHECK(healable_bytes(tok, static_cast<TokenId>(tok.n_vocab())).empty());
  // A byte token that starts a two-byte character is ordinary but not whole UTF-8.
  const std::vector<TokenId> lead = tok.encode("\xc3");
  REQUIRE(lead.size() == 1);
  CHECK(is_ordinary_token(tok, lead[0]));
  CHECK(healable_bytes(tok, lead[0]).empty());
}

TEST_CASE("token healing: the index finds exactly the tokens a full scan finds (bundled vocabulary)",
          "[token_healing]") {
  const Tokenizer tok = load_tokenizer(bundled_model());
  const TokenHealer healer(tok);
  CHECK(healer.indexed() > 3000);
  CHECK(healer.indexed() < tok.n_vocab());  // the special tokens are not in it
  for (const std::string& rest : sample_rests(tok, 1)) check_allowed(tok, healer, rest);
  std::vector<TokenId> none{1, 2, 3};
  healer.allowed("", none);
  CHECK(none.empty());
  // A healed token is always allowed at its own first step.
  std::vector<TokenId> out;
  const TokenId ret = tok.encode(" ret")[0];
  healer.allowed(" ret", out);
  CHECK(std::find(out.begin(), out.end(), ret) != out.end());
  CHECK(std::find(out.begin(), out.end(), tok.encode(" return")[0]) != out.end());
}

TEST_CASE("token healing: the index agrees with a scan on Qwen2.5's 151,936 tokens", "[token_healing][testdata]") {
  const Tokenizer tok = load_tokenizer(test::require_testdata("reference/tiny-qwen2-q8_0.gguf"));
  REQUIRE(tok.n_vocab() == 151936);
  const TokenHealer healer(tok);
  CHECK(healer.indexed() > 150000);
  for (const std::string& rest : sample_rests(tok, 997)) check_allowed(tok, healer, rest);
  // After indentation Qwen writes " return" as one token: healing the indentation reaches
  // it in two steps (the spaces but one, then " return"), never directly.
  std::vector<TokenId> out;
  healer.allowed("   ", out);
  const std::vector<TokenId> ret = tok.encode(" return");
  REQUIRE(ret.size() == 1);
  CHECK(std::find(out.begin(), out.end(), ret[0]) == out.end());  // " return" does not start with 3 spaces
  healer.allowed(" ", out);
  CHECK(std::find(out.begin(), out.end(), ret[0]) != out.end());
}

TEST_CASE("token healing: the prompt loses the prefix's last token, in every order", "[token_healing]") {
  const Tokenizer tok = load_tokenizer(bundled_model());
  auto fim = find_fim_tokens(tok);
  REQUIRE(fim.ok());
  const std::vector<ContextFile> extra{{"util.py", "def helper():\n    pass\n"}};
  const std::string prefix = "def f(x):\n    retu", suffix = "\n\nprint(f(1))\n";
  const std::vector<TokenId> prefix_tokens = tok.encode(prefix);
  for (const char* name : {"qwen", "qwen-spm", "starcoder", "codellama-spm", "codegemma", "deepseek"}) {
    for (const std::vector<ContextFile>* files : {static_cast<const std::vector<ContextFile>*>(nullptr), &extra}) {
      INFO(name << (files ? " with extra files" : ""));
      const auto t = parse_fim_template(name);
      REQUIRE(t.ok());
      const FimParts parts{files, prefix, suffix, "src/f.py", "repo"};
      const std::vector<TokenId> plain = build_fim_prompt(tok, *fim, *t, parts);
      std::string healed = "stale";
      const std::vector<TokenId> off = build_fim_prompt_within(tok, *fim, *t, parts, SIZE_MAX, nullptr, nullptr, nullptr);
      const std::vector<TokenId> on = build_fim_prompt_within(tok, *fim, *t, parts, SIZE_MAX, nullptr, nullptr, &healed);
      CHECK(off == plain);  // healing off: the old prompt
      REQUIRE(on.size() + 1 == plain.size());
      CHECK(healed == "u");
      CHECK(healed == tok.token_bytes(prefix_tokens.back()));
      // The one token missing is the prefix's last one.
      const auto split = std::mismatch(on.begin(), on.end(), plain.begin()).second - plain.begin();
      CHECK(plain[static_cast<size_t>(split)] == prefix_tokens.back());
      CHECK(std::equal(on.begin() + split, on.end(), plain.begin() + split + 1));
      CHECK(std::equal(plain.begin() + split - static_cast<std::ptrdiff_t>(prefix_tokens.size()) + 1,
                       plain.begin() + split, prefix_tokens.begin()));
      // The copy predictor's stream loses the same token (it is generated again).
      std::vector<TokenId> reading, reading_healed;
      build_fim_prompt_within(tok, *fim, *t, parts, SIZE_MAX, nullptr, &reading, nullptr);
      build_fim_prompt_within(tok, *fim, *t, parts, SIZE_MAX, nullptr, &reading_healed, &healed);
      REQUIRE(reading_healed.size() + 1 == reading.size());
      CHECK(reading.back() == prefix_tokens.back());
      CHECK(std::equal(reading_healed.begin(), reading_healed.end(), reading.begin()));
    }
  }
}

TEST_CASE("token healing: skipped for an empty prefix and a prefix ending inside a character", "[token_healing]") {
  const Tokenizer tok = load_tokenizer(bundled_model());
  auto fim = find_fim_tokens(tok);
  REQUIRE(fim.ok());
  for (const std::string& prefix : {std::string(), std::string("x = 'caf\xc3")}) {
    INFO(escape_piece(prefix));
    const FimParts parts{nullptr, prefix, "\n"};
    std::string healed = "stale";
    const auto on = build_fim_prompt_within(tok, *fim, FimTemplate{}, parts, SIZE_MAX, nullptr, nullptr, &healed);
    CHECK(healed.empty());
    CHECK(on == build_fim_prompt(tok, *fim, FimTemplate{}, parts));
  }
  // Text spelling a control token is plain text: its last token heals like any other.
  std::string healed;
  build_fim_prompt_within(tok, *fim, FimTemplate{}, FimParts{nullptr, "s = '<|endoftext|>", ""}, SIZE_MAX, nullptr, nullptr,
                          &healed);
  CHECK(!healed.empty());
  CHECK(std::string("s = '<|endoftext|>").ends_with(healed));
}

namespace {

// What the model generates after the healed prompt, by a decode loop of its own: prefill in
// the engine's chunks, then while healed bytes remain pick among the tokens a full scan
// allows, then freely, for max_tokens tokens. Returns all generated bytes (healed ones
// included).
struct Reference {
  std::string bytes;   // everything generated
  int visible = 0;     // tokens that went past the healed bytes
};

Reference reference_decode(const std::vector<TokenId>& prompt, std::string_view healed, const CompletionRequest& r) {
  auto model = Model::load(bundled_model());
  REQUIRE(model.ok());
  const Tokenizer tok = load_tokenizer(bundled_model());
  auto fim = find_fim_tokens(tok);
  REQUIRE(fim.ok());
  ThreadPool pool(1);
  auto session = Session::create(**model, pool, 1024, *parse_kv_type(EngineOptions{}.kv_type));  // the engine's
  REQUIRE(session.ok());
  for (size_t pos = 0; pos < prompt.size(); pos += 64) {
    const size_t n = std::min<size_t>(64, prompt.size() - pos);
    REQUIRE(session->eval(std::span<const int32_t>(prompt.data() + pos, n)).ok());
  }
  SamplerParams sp;
  sp.temperature = r.temperature;
  sp.top_p = r.top_p;
  sp.seed = r.seed;
  Sampler sampler(sp);
  Reference out;
  std::string rest(healed);
  std::vector<TokenId> allowed;
  for (int n = 0; n < r.max_tokens; ++n) {  // every generated token counts, healed ones too
    const std::span<const float> logits(session->logits());
    TokenId t;
    if (!rest.empty()) {
      allowed_by_scan(tok, rest, allowed);
      t = sampler.sample(logits, allowed);
      REQUIRE(t >= 0);
      const std::string_view b = tok.token_bytes(t);
      REQUIRE((b.starts_with(rest) || std::string_view(rest).starts_with(b)));  // the constraint
    } else {
      t = sampler.sample(logits);
    }
    if (tok.is_eog(t) || tok.is_control(t) ||
        std::binary_search(fim->end_of_generation.begin(), fim->end_of_generation.end(), t))
      break;
    sampler.accept(t);
    const std::string_view b = tok.token_bytes(t);
    out.bytes += b;
    if (b.size() > rest.size()) ++out.visible;
    rest.erase(0, std::min(rest.size(), b.size()));
    REQUIRE(session->eval(std::span<const int32_t>(&t, 1)).ok());
  }
  return out;
}

// The engine's text for the reference bytes: what follows the healed bytes, as whole characters.
std::string shown(const Tokenizer& tok, const std::string& bytes, size_t healed) {
  StreamDecoder d(tok);
  return d.push_bytes(std::string_view(bytes).substr(healed)) + d.finish();
}

struct HealingEngine {
  std::unique_ptr<LocalEngine> engine;
  explicit HealingEngine(bool healing = true, const char* format = "auto") {
    EngineOptions o;
    o.model_path = bundled_model().string();
    o.threads = 1;
    o.context_length = 1024;
    o.max_draft = 0;
    o.token_healing = healing;
    o.fim_format = format;
    o.copy_strength = 0;  // the reference below is the network alone
    auto e = LocalEngine::load(o);
    REQUIRE(e.ok());
    engine = std::move(*e);
  }
  test::Recorded run(const CompletionRequest& r) {
    test::Recorded rec;
    engine->complete(r, rec.callback());
    REQUIRE(rec.finals == 1);
    REQUIRE(rec.last().kind == CompletionEvent::Kind::kDone);
    return rec;
  }
  std::vector<TokenId> prompt(const CompletionRequest& r, std::string* healed) const {
    auto fim = find_fim_tokens(engine->tokenizer());
    REQUIRE(fim.ok());
    auto t = parse_fim_template(engine->info().fim_format);
    REQUIRE(t.ok());
    return build_fim_prompt_within(engine->tokenizer(), *fim, *t, FimParts{&r.extra, r.prefix, r.suffix}, SIZE_MAX,
                                   nullptr, nullptr, healed);
  }
};

const std::string kPrefix = "import os\n\n\ndef read_lines(path):\n    with open(path) as f:\n        retu";
const std::string kSuffix = "\n\n\ndef main():\n    print(read_lines('a.txt'))\n";

}  // namespace

TEST_CASE("token healing: a greedy run continues the typed word without repeating it", "[token_healing][engine]") {
  for (const char* format : {"auto", "qwen"}) {  // the bundled model's SPM order, and PSM
    INFO(format);
    HealingEngine h(true, format);
    CompletionRequest r = test::request("doc", kPrefix, kSuffix, 12);
    const test::Recorded rec = h.run(r);
    std::string healed;
    const std::vector<TokenId> prompt = h.prompt(r, &healed);
    REQUIRE(healed == "u");
    CHECK(rec.last().timings.healed_bytes == 1);
    CHECK(rec.last().timings.tokens_prefilled == static_cast<int>(prompt.size()));
    const Reference ref = reference_decode(prompt, healed, r);
    INFO("reference: " << escape_piece(ref.bytes) << "; engine: " << escape_piece(rec.last().text));
    REQUIRE(ref.bytes.starts_with(healed));
    CHECK(rec.last().text == shown(h.engine->tokenizer(), ref.bytes, healed.size()));
    CHECK(rec.streamed == rec.last().text);
    CHECK(!rec.last().text.empty());
    CHECK(rec.last().timings.tokens_generated >= ref.visible);
    CHECK(ref.visible >= 1);
    // The budget counts the regenerated token too: one token, and what it adds past "u".
    r.session_key = "one";
    r.max_tokens = 1;
    const test::Recorded one = h.run(r);
    CHECK(one.last().timings.tokens_generated == 1);
    CHECK(one.last().stop == StopReason::kMaxTokens);
    CHECK(rec.last().text.starts_with(one.last().text));
  }
}

TEST_CASE("token healing: off, the prompt and the run are the old ones", "[token_healing][engine]") {
  HealingEngine h(false);
  CompletionRequest r = test::request("doc", kPrefix, kSuffix, 8);
  const test::Recorded rec = h.run(r);
  const std::vector<TokenId> prompt = h.prompt(r, nullptr);
  CHECK(rec.last().timings.healed_bytes == 0);
  CHECK(rec.last().timings.tokens_prefilled == static_cast<int>(prompt.size()));
  const Reference ref = reference_decode(prompt, "", r);
  CHECK(rec.last().text == shown(h.engine->tokenizer(), ref.bytes, 0));
}

TEST_CASE("token healing: sampled runs choose only tokens that reproduce the typed bytes", "[token_healing][engine]") {
  HealingEngine h;
  // After indentation the prefix ends in a whitespace token: many tokens can heal it.
  for (const std::string& prefix : {kPrefix, std::string("def f(x):\n    if x:\n        ")}) {
    for (uint64_t seed : {1, 2, 3, 4}) {
      INFO("seed " << seed << " prefix " << escape_piece(prefix));
      CompletionRequest r = test::request("s" + std::to_string(seed), prefix, kSuffix, 6);
      r.temperature = 1.5f;
      r.top_p = 1.0f;
      r.seed = seed;
      const test::Recorded rec = h.run(r);
      std::string healed;
      const std::vector<TokenId> prompt = h.prompt(r, &healed);
      REQUIRE(!healed.empty());
      const Reference ref = reference_decode(prompt, healed, r);
      REQUIRE(ref.bytes.starts_with(healed));
      CHECK(rec.last().text == shown(h.engine->tokenizer(), ref.bytes, healed.size()));
    }
  }
}

TEST_CASE("token healing: stop strings and the stop callback see only the text after the cursor",
          "[token_healing][engine]") {
  HealingEngine h;
  CompletionRequest r = test::request("doc", kPrefix, kSuffix, 12);
  const std::string full = h.run(r).last().text;
  REQUIRE(full.size() >= 2);
  // A stop string made of the healed byte and the first shown character: it is only in the
  // text when the healed bytes are, so the completion must come back whole.
  std::string stop = "u" + full.substr(0, 1);
  REQUIRE(full.find(stop) == std::string::npos);
  r.session_key = "stop";
  r.stop = {stop};
  CHECK(h.run(r).last().text == full);
  // A stop string inside the shown text still cuts it.
  r.stop = {full.substr(1, 1)};
  const test::Recorded cut = h.run(r);
  CHECK(cut.last().stop == StopReason::kStopString);
  CHECK(cut.last().text == full.substr(0, full.find(r.stop[0])));

  r.stop.clear();
  r.session_key = "callback";
  std::vector<std::string> seen;
  r.should_stop = [&](std::string_view text) {
    seen.emplace_back(text);
    return false;
  };
  CHECK(h.run(r).last().text == full);
  REQUIRE(!seen.empty());
  for (const std::string& s : seen) CHECK(full.starts_with(s));
  CHECK(seen.back() == full);
  // Stopping at the first call keeps only what the first visible token added.
  r.session_key = "first";
  r.should_stop = [](std::string_view) { return true; };
  const test::Recorded first = h.run(r);
  CHECK(first.last().stop == StopReason::kStopCallback);
  CHECK(!first.last().text.empty());
  CHECK(full.starts_with(first.last().text));
}

TEST_CASE("token healing: the next keystroke still reuses the cached prompt", "[token_healing][engine]") {
  HealingEngine h;
  CompletionRequest r = test::request("doc", kPrefix.substr(0, kPrefix.size() - 1), kSuffix, 4);
  h.run(r);
  r.prefix = kPrefix;
  const test::Recorded rec = h.run(r);
  std::string healed;
  const std::vector<TokenId> prompt = h.prompt(r, &healed);
  // The bundled model reads SPM order: only the end of the prompt changed.
  CHECK(h.engine->info().fim_format.ends_with("-spm"));
  CHECK(rec.last().timings.tokens_reused + rec.last().timings.tokens_prefilled == static_cast<int>(prompt.size()));
  CHECK(rec.last().timings.tokens_prefilled <= 3);
}
