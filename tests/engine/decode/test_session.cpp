// Session: generation with its stop conditions, prefix reuse, streaming/cancellation through
// the callback, and clean errors for prompts that do not fit.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/decode/session.h"
#include "tests/engine/decode/tiny_model.h"
#include "tests/engine/model_files.h"
#include "tests/support/testing.h"

using namespace wafer;

namespace {

using Fixture = test::TinyModel;

const std::vector<int32_t> kPrompt{1, 5, 9, 14, 2, 33};

// Token t "spells" a letter, so stop strings can be tested without a tokenizer.
std::string_view letter(int32_t t) {
  static const std::string letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789..";
  return std::string_view(letters).substr(static_cast<size_t>(t), 1);
}

}  // namespace

TEST_CASE("session: greedy generation is deterministic and stops at max_tokens", "[session]") {
  Fixture f;
  Session s = f.session();
  GenerateParams p;
  p.max_tokens = 6;
  std::vector<int32_t> streamed;
  auto r = s.generate(kPrompt, p, [&](int32_t t) {
    streamed.push_back(t);
    return true;
  });
  REQUIRE(r.ok());
  CHECK(r->tokens.size() == 6);
  CHECK(streamed == r->tokens);
  CHECK(r->stop == StopReason::kMaxTokens);
  CHECK(r->prompt_tokens == 6);
  // The cache holds the prompt and every generated token but the last (not yet evaluated).
  CHECK(s.tokens().size() == kPrompt.size() + 5);

  Session other = f.session();
  auto again = other.generate(kPrompt, p);
  REQUIRE(again.ok());
  CHECK(again->tokens == r->tokens);
}

TEST_CASE("session: a new prompt reuses the common prefix", "[session]") {
  Fixture f;
  Session s = f.session();
  GenerateParams p;
  p.max_tokens = 4;
  auto first = s.generate(kPrompt, p);
  REQUIRE(first.ok());
  // Same prompt: everything but the last prompt token is reused; same output.
  auto same = s.generate(kPrompt, p);
  REQUIRE(same.ok());
  CHECK(same->reused_tokens == static_cast<int>(kPrompt.size()) - 1);
  CHECK(same->tokens == first->tokens);
  // The prompt extended by the first generated tokens: reuses the cache past the prompt.
  std::vector<int32_t> longer = kPrompt;
  longer.insert(longer.end(), first->tokens.begin(), first->tokens.begin() + 2);
  auto cont = s.generate(longer, p);
  REQUIRE(cont.ok());
  CHECK(cont->reused_tokens == static_cast<int>(longer.size()) - 1);
  CHECK(std::vector<int32_t>(cont->tokens.begin(), cont->tokens.begin() + 2) ==
        std::vector<int32_t>(first->tokens.begin() + 2, first->tokens.end()));
  // A different prompt keeps only the shared head.
  std::vector<int32_t> other = {1, 5, 40, 41};
  auto o = s.generate(other, p);
  REQUIRE(o.ok());
  CHECK(o->reused_tokens == 2);
}

TEST_CASE("session: stop tokens, stop strings and the callback end generation", "[session]") {
  Fixture f;
  GenerateParams p;
  p.max_tokens = 8;
  p.token_text = letter;
  Session s = f.session();
  auto free_run = s.generate(kPrompt, p);
  REQUIRE(free_run.ok());
  REQUIRE(free_run->tokens.size() == 8);
  CHECK(free_run->text.size() == 8);

  // An end-of-generation token: stops before it, and it is not part of the output.
  GenerateParams eog = p;
  eog.stop_tokens = {free_run->tokens[3]};
  auto r = s.generate(kPrompt, eog);
  REQUIRE(r.ok());
  CHECK(r->stop == StopReason::kEndOfText);
  CHECK(r->tokens.size() < 4);
  CHECK(std::find(r->tokens.begin(), r->tokens.end(), free_run->tokens[3]) == r->tokens.end());

  // A stop string spanning tokens 2..3: the text ends before it.
  GenerateParams stop = p;
  stop.stop_strings = {free_run->text.substr(2, 2)};
  r = s.generate(kPrompt, stop);
  REQUIRE(r.ok());
  CHECK(r->stop == StopReason::kStopString);
  CHECK(r->text == free_run->text.substr(0, free_run->text.find(stop.stop_strings[0])));

  // The callback cancels after two tokens.
  int calls = 0;
  r = s.generate(kPrompt, p, [&](int32_t) { return ++calls < 2; });
  REQUIRE(r.ok());
  CHECK(r->stop == StopReason::kStopCallback);
  CHECK(r->tokens.size() == 2);
}

TEST_CASE("session: prompts longer than the context fail cleanly", "[session]") {
  Fixture f;
  Session s = f.session(8);
  GenerateParams p;
  p.max_tokens = 20;
  std::vector<int32_t> long_prompt(9, 3);
  auto r = s.generate(long_prompt, p);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "generate: the prompt of 9 tokens does not fit the context of 8 tokens");
  // A prompt that fits generates until the context is full.
  auto ok = s.generate(kPrompt, p);
  REQUIRE(ok.ok());
  CHECK(ok->stop == StopReason::kBudget);
  CHECK(s.tokens().size() == 8);
  // Out-of-vocabulary ids and empty prompts are errors too.
  CHECK_FALSE(s.generate(std::vector<int32_t>{64}, p).ok());
  CHECK_FALSE(s.generate(std::vector<int32_t>{}, p).ok());
  CHECK_FALSE(s.eval(std::vector<int32_t>(20, 1)).ok());
}

TEST_CASE("session: an interrupted eval leaves the cache as it was, the next one is exact", "[session]") {
  Fixture f;
  const std::span<const int32_t> head(kPrompt.data(), 3), rest(kPrompt.data() + 3, kPrompt.size() - 3);
  Session plain = f.session();
  REQUIRE(plain.eval(head).ok());
  REQUIRE(plain.eval(rest).ok());

  Session s = f.session();
  REQUIRE(s.eval(head).ok());
  std::atomic<bool> interrupt{true};
  Status st = s.eval(rest, LogitsFor::kLast, &interrupt);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message == Forward::kInterrupted);
  CHECK(s.tokens() == std::vector<int32_t>(head.begin(), head.end()));  // nothing of `rest` got in
  interrupt = false;
  REQUIRE(s.eval(rest, LogitsFor::kLast, &interrupt).ok());
  CHECK(s.tokens() == kPrompt);
  CHECK(s.logits() == plain.logits());  // the half-written entries of the interrupted run left no trace
}
