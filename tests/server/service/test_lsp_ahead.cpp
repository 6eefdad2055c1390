// Ahead-of-cursor decoding with the fake engine: after a suggestion is answered the engine
// decodes its continuation in the background, so the request after the user accepts the
// suggestion (whole, or line by line) is answered without the engine; any keystroke or
// other request ends that work at once, so it never holds up a request.
#include "tests/server/lsp_fixture.h"

using namespace wafer;
using namespace wafer::test;
using json = nlohmann::json;

namespace {

// The greedy suggestion at the cursor, then what the model says once it is accepted.
json script() {
  return {{"rules", {{{"prefix_ends_with", "return total + tax"}, {"text", " + fee"}},
                     {{"prefix_ends_with", "return "}, {"text", "total + tax"}}}},
          {"text", "pass"}};
}

Options with_ahead(int tokens) {
  Options o;
  o.debounce_ms = 0;
  o.ahead_tokens = tokens;
  return o;
}

std::string served_by(const json& reply) { return reply["result"]["wafer"]["served_by"]; }

}  // namespace

TEST_CASE("ahead: the request after accepting a suggestion is answered from the continuation", "[lsp][ahead]") {
  LspFixture f(script(), with_ahead(16));
  f.open(kPriceUri, kPriceText);
  json first = f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 2));
  CHECK(LspFixture::texts(first) == std::vector<std::string>{"total + tax"});
  REQUIRE(f.loop().run_until([&] { return f.count("ahead_prepared") == 1; }));
  CHECK(f.engine().calls() == 2);  // the greedy run, then the run ahead
  CompletionRequest ahead = f.engine().last_request();
  CHECK(ahead.prefix.ends_with("return total + tax"));
  CHECK(ahead.max_tokens == 16);
  // The user accepts (Tab): the editor inserts the suggestion and asks at its end.
  f.notify("textDocument/didShowCompletion", {{"item", first["result"]["items"][0]}});
  f.insert(kPriceUri, 1, 11, "total + tax");
  json next = f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 22, 2));
  CHECK(LspFixture::texts(next) == std::vector<std::string>{" + fee"});
  CHECK(served_by(next) == "ahead");
  CHECK(f.engine().calls() == 2);  // no engine run for it
  // Typing into the continuation is typing-through.
  f.insert(kPriceUri, 1, 22, " +");
  json typed = f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 24, 2));
  CHECK(LspFixture::texts(typed) == std::vector<std::string>{" fee"});
  CHECK(f.engine().calls() == 2);
  CHECK(f.count("ahead_hits") == 2);
  CHECK(f.count("ahead_started") == 1);
}

TEST_CASE("ahead: accepting a multi-line suggestion line by line reaches the continuation", "[lsp][ahead]") {
  json s = {{"rules", {{{"prefix_ends_with", "    x = 1\n    y = 2"}, {"text", "\n    z = 3"}},
                       {{"prefix_ends_with", "def f():\n    "}, {"text", "x = 1\n    y = 2"}}}},
            {"text", ""}};
  LspFixture f(s, with_ahead(16));
  f.open(kPriceUri, "def f():\n    \n");
  json first = f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 4, 2));
  CHECK(LspFixture::texts(first) == std::vector<std::string>{"x = 1\n    y = 2"});
  REQUIRE(f.loop().run_until([&] { return f.count("ahead_prepared") == 1; }));
  // Accept line: the first line and its line break.
  f.notify("textDocument/didPartiallyAcceptCompletion", {{"item", first["result"]["items"][0]}, {"acceptedLength", 10}});
  f.insert(kPriceUri, 1, 4, "x = 1\n    ");
  json rest = f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 2, 4, 2));
  CHECK(LspFixture::texts(rest) == std::vector<std::string>{"y = 2"});
  CHECK(served_by(rest) == "typing");
  f.insert(kPriceUri, 2, 4, "y = 2");
  json next = f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 2, 9, 2));
  CHECK(LspFixture::texts(next) == std::vector<std::string>{"\n    z = 3"});
  CHECK(served_by(next) == "ahead");
  CHECK(f.engine().calls() == 2);
}

TEST_CASE("ahead: a keystroke ends the work ahead at once, the next request does not wait for it", "[lsp][ahead]") {
  LspFixture f(script(), with_ahead(16));
  f.open(kPriceUri, kPriceText);
  f.engine().hold(true);
  const int id = f.send_request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 2));
  f.engine().release();  // the greedy run
  CHECK(LspFixture::texts(f.response(id)) == std::vector<std::string>{"total + tax"});
  REQUIRE(f.loop().run_until([&] { return f.engine().calls() == 2; }));  // the run ahead holds the engine
  CHECK(f.server().scheduler().engine_busy());
  // The user types something else: the run ahead is superseded, and the next request
  // reaches the engine although the run ahead was never released.
  f.insert(kPriceUri, 1, 11, "x");
  REQUIRE(f.loop().run_until([&] { return f.count("ahead_outcome_superseded") == 1; }));
  const int next = f.send_request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 12, 2));
  REQUIRE(f.loop().run_until([&] { return f.engine().calls() == 3; }));
  CHECK(f.engine().last_request().prefix.ends_with("return x"));
  CHECK(f.count("ahead_prepared") == 0);
  f.engine().hold(false);
  f.engine().release();
  json reply = f.response(next);
  CHECK(served_by(reply) == "engine");
  CHECK(LspFixture::texts(reply) == std::vector<std::string>{"pass"});
}

TEST_CASE("ahead: a request for another document also ends it, aheadTokens 0 turns it off", "[lsp][ahead]") {
  {
    LspFixture f(script(), with_ahead(16));
    f.open(kPriceUri, kPriceText);
    f.open("file:///w/other.py", "def g():\n    return \n");
    f.engine().hold(true);
    const int id = f.send_request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 2));
    f.engine().release();
    f.response(id);
    REQUIRE(f.loop().run_until([&] { return f.engine().calls() == 2; }));  // ahead, held
    const int other = f.send_request("textDocument/inlineCompletion",
                                     LspFixture::inline_params("file:///w/other.py", 1, 11, 2));
    REQUIRE(f.loop().run_until([&] { return f.engine().calls() == 3; }));
    CHECK(f.count("ahead_outcome_superseded") == 1);
    f.engine().hold(false);
    f.engine().release();
    CHECK(LspFixture::texts(f.response(other)) == std::vector<std::string>{"total + tax"});
  }
  LspFixture f(script(), with_ahead(0));
  f.open(kPriceUri, kPriceText);
  f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 2));
  f.insert(kPriceUri, 1, 11, "total + tax");
  json next = f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 22, 2));
  CHECK(served_by(next) == "engine");
  CHECK(f.engine().calls() == 2);
  CHECK(f.count("ahead_started") == 0);
}
