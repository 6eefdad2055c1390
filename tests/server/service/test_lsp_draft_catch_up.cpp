// A request that decodes without its draft model because the draft's cache is far behind
// its prompt (Timings::draft_behind) leaves the catching up to idle time: the service
// follows it with a prefill-only job that brings the draft's cache to that prompt, before
// any work ahead of the cursor; the next request ends it as it ends any background work.
#include "tests/server/lsp_fixture.h"

using namespace wafer;
using namespace wafer::test;
using json = nlohmann::json;

namespace {

Options no_debounce(int ahead_tokens) {
  Options o;
  o.debounce_ms = 0;
  o.ahead_tokens = ahead_tokens;
  return o;
}

}  // namespace

TEST_CASE("draft catch-up: a request the draft model sat out is followed by its catch-up in idle time",
          "[lsp][draft]") {
  LspFixture f(json{{"text", "total + tax"}, {"draft_behind", true}}, no_debounce(0));
  f.open(kPriceUri, kPriceText);
  json first = f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 2));
  CHECK(LspFixture::texts(first) == std::vector<std::string>{"total + tax"});
  REQUIRE(f.loop().run_until([&] { return f.count("draft_catch_up_outcome_done") == 1; }));
  CHECK(f.count("draft_behind") == 1);
  CHECK(f.count("draft_catch_up_started") == 1);
  REQUIRE(f.engine().calls() == 2);  // the request, then the catch-up
  const CompletionRequest r = f.engine().last_request();
  CHECK(r.prefill_only);
  CHECK(r.warm_draft);
  CHECK_FALSE(r.draft_catch_up_later);
  CHECK(r.first_token_budget_ms == 0);  // idle time: the whole prompt
  CHECK(r.prefix.ends_with("    return "));  // the request's own prompt
  CHECK(r.suffix == "\n");
}

TEST_CASE("draft catch-up: a request whose draft kept up is followed by nothing", "[lsp][draft]") {
  LspFixture f(json{{"text", "total + tax"}}, no_debounce(0));
  f.open(kPriceUri, kPriceText);
  json first = f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 2));
  CHECK(LspFixture::texts(first) == std::vector<std::string>{"total + tax"});
  // The request asks the engine to leave a far-behind draft to later...
  CHECK(f.engine().last_request().draft_catch_up_later);
  // ...and the engine did not need to: no job follows.
  f.loop().run_for(std::chrono::milliseconds(100));
  CHECK(f.engine().calls() == 1);
  CHECK(f.count("draft_behind") == 0);
  CHECK(f.count("draft_catch_up_started") == 0);
}

TEST_CASE("draft catch-up: it comes before the work ahead of the cursor", "[lsp][draft]") {
  LspFixture f(json{{"text", "total + tax"}, {"draft_behind", true}}, no_debounce(16));
  f.open(kPriceUri, kPriceText);
  json first = f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 2));
  CHECK(LspFixture::texts(first) == std::vector<std::string>{"total + tax"});
  REQUIRE(f.loop().run_until([&] { return f.count("ahead_outcome_done") == 1; }));
  CHECK(f.count("draft_catch_up_outcome_done") == 1);
  REQUIRE(f.engine().calls() == 3);  // the request, the catch-up, then the work ahead
  const CompletionRequest ahead = f.engine().last_request();
  CHECK_FALSE(ahead.prefill_only);
  CHECK(ahead.prefix.ends_with("return total + tax"));
}

TEST_CASE("draft catch-up: the next request ends its draft part at once", "[lsp][draft]") {
  LspFixture f(json{{"text", "total + tax"}, {"draft_behind", true}}, no_debounce(0));
  f.open(kPriceUri, kPriceText);
  f.engine().hold(true);
  const int id = f.send_request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 2));
  f.engine().release();  // the request
  CHECK(LspFixture::texts(f.response(id)) == std::vector<std::string>{"total + tax"});
  REQUIRE(f.loop().run_until([&] { return f.engine().calls() == 2; }));  // the catch-up holds the engine
  CHECK(f.engine().last_request().warm_draft);
  // The user types on: the request after the keystroke ends the draft's part (its prompt
  // extends the catch-up's, whose model part it would wait for) and reaches the engine
  // although the catch-up was never released.
  f.insert(kPriceUri, 1, 11, "x");
  const int next = f.send_request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 12, 2));
  REQUIRE(f.loop().run_until([&] { return f.engine().calls() == 3; }));
  CHECK(f.count("draft_catch_up_outcome_done") == 1);
  CHECK(f.engine().last_request().prefix.ends_with("return x"));
  f.engine().hold(false);
  f.engine().release();
  CHECK(LspFixture::texts(f.response(next)) == std::vector<std::string>{"total + tax"});
}

TEST_CASE("draft catch-up: a request in another document supersedes it", "[lsp][draft]") {
  LspFixture f(json{{"text", "total + tax"}, {"draft_behind", true}}, no_debounce(0));
  f.open(kPriceUri, kPriceText);
  f.open("file:///w/other.py", "def g():\n    return \n");
  f.engine().hold(true);
  const int id = f.send_request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 2));
  f.engine().release();
  f.response(id);
  REQUIRE(f.loop().run_until([&] { return f.engine().calls() == 2; }));  // the catch-up, held
  const int other =
      f.send_request("textDocument/inlineCompletion", LspFixture::inline_params("file:///w/other.py", 1, 11, 2));
  REQUIRE(f.loop().run_until([&] { return f.engine().calls() == 3; }));
  CHECK(f.count("draft_catch_up_outcome_superseded") == 1);
  f.engine().hold(false);
  f.engine().release();
  CHECK(LspFixture::texts(f.response(other)) == std::vector<std::string>{"total + tax"});
}
