// Alternatives for invoked inline completions, with the fake engine: an invoked request
// gets the greedy suggestion plus distinct sampled ones (blank and duplicate results
// dropped), an automatic request gets one, and `alternatives: 1` turns them off.
#include "tests/server/lsp_fixture.h"

using namespace wafer;
using namespace wafer::test;
using json = nlohmann::json;

namespace {

// Greedy "total + tax"; sampled runs answer sampled[seed % 4]: seed 1 repeats the greedy
// one (with a trailing blank), seed 2 is blank, seeds 3 and 4 are new.
json script() {
  return {{"text", "total + tax"}, {"sampled", {"total * tax", "total + tax ", "   ", "tax"}}};
}

Options with_alternatives(int n) {
  Options o;
  o.debounce_ms = 0;
  o.alternatives = n;
  o.ahead_tokens = 0;  // no background runs: engine calls are counted
  return o;
}

}  // namespace

TEST_CASE("alternatives: an invoked request yields the greedy suggestion, then distinct sampled ones", "[lsp][alternatives]") {
  LspFixture f(script(), with_alternatives(5));
  f.open(kPriceUri, kPriceText);
  json reply = f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 1));
  CHECK(LspFixture::texts(reply) == std::vector<std::string>{"total + tax", "tax", "total * tax"});
  for (const json& item : reply["result"]["items"]) {
    CHECK(item["range"]["start"] == json{{"line", 1}, {"character", 11}});
    CHECK(item["range"]["end"] == item["range"]["start"]);
  }
  CHECK(f.engine().calls() == 5);  // greedy + 4 sampled
  CompletionRequest last = f.engine().last_request();
  CHECK(last.temperature == Approx(0.7));
  CHECK(last.top_p == Approx(0.95));
  CHECK(last.seed == 4);
  json counts = f.counts();
  CHECK(counts["alternatives_returned"] == 3);
  CHECK(counts["alternatives_dropped"] == 2);
  CHECK(counts["alternative_outcome_done"] == 4);
}

TEST_CASE("alternatives: an automatic request stays single and greedy", "[lsp][alternatives]") {
  LspFixture f(script(), with_alternatives(5));
  f.open(kPriceUri, kPriceText);
  json reply = f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 2));
  CHECK(LspFixture::texts(reply) == std::vector<std::string>{"total + tax"});
  CHECK(f.engine().calls() == 1);
  CHECK(f.engine().last_request().temperature == 0);
}

TEST_CASE("alternatives: 1 turns them off, the same document gives the same alternatives", "[lsp][alternatives]") {
  {
    LspFixture f(script(), with_alternatives(1));
    f.open(kPriceUri, kPriceText);
    json reply = f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 1));
    CHECK(LspFixture::texts(reply) == std::vector<std::string>{"total + tax"});
    CHECK(f.engine().calls() == 1);
  }
  LspFixture f(script(), with_alternatives(3));
  f.open(kPriceUri, kPriceText);
  std::vector<std::string> first =
      LspFixture::texts(f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 1)));
  CHECK(first == std::vector<std::string>{"total + tax"});  // seeds 1 and 2: a repeat and a blank
  // Changed settings take effect on the next request.
  f.notify("workspace/didChangeConfiguration", {{"settings", {{"alternatives", 4}}}});
  std::vector<std::string> second =
      LspFixture::texts(f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 1)));
  CHECK(second == std::vector<std::string>{"total + tax", "tax"});
}

TEST_CASE("alternatives: $/cancelRequest during the sampled runs cancels the request", "[lsp][alternatives]") {
  LspFixture f(script(), with_alternatives(3));
  f.open(kPriceUri, kPriceText);
  f.engine().hold(true);
  const int id = f.send_request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 1));
  f.engine().release();  // the greedy run
  REQUIRE(f.loop().run_until([&] { return f.engine().calls() == 2; }));  // the first sampled run is held
  f.notify("$/cancelRequest", {{"id", id}});
  json reply = f.response(id);
  CHECK(reply["error"]["code"] == -32800);
  CHECK(f.engine().calls() == 2);
}
