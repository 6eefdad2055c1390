// The daemon's ring of recent edits (CompletionService::change, server/prompt/recent_chunks.h):
// a place edited in one document shows in the prompt of a completion in another, and the
// extra context's tokens are counted per source. Yanked text joins the ring (wafer/yank).
#include <catch2/catch.hpp>

#include "tests/server/lsp_fixture.h"

using namespace wafer;
using namespace wafer::test;

namespace {

// The recent chunks of the last request the engine got.
std::vector<ContextFile> recent_in_prompt(LspFixture& f) {
  std::vector<ContextFile> out;
  for (const ContextFile& c : f.engine().last_request().extra)
    if (std::string(c.source) == "recent") out.push_back(c);
  return out;
}

constexpr const char* kRatesUri = "file:///w/rates.py";
constexpr const char* kRatesText = "RATE = 1\n\ndef rate_for(region):\n    return RATE\n";

nlohmann::json yank_range(const std::string& uri, int l0, int c0, int l1, int c1) {
  return {{"textDocument", {{"uri", uri}}},
          {"range", {{"start", {{"line", l0}, {"character", c0}}}, {"end", {{"line", l1}, {"character", c1}}}}}};
}

// A server (no debounce) with rates.py and price.py open.
struct TwoDocuments {
  static Options options() {
    Options o;
    o.debounce_ms = 0;
    return o;
  }
  LspFixture f{nlohmann::json{{"text", "x"}}, options()};
  TwoDocuments() {
    f.open(kRatesUri, kRatesText);
    f.open(kPriceUri, kPriceText);
  }
};

}  // namespace

TEST_CASE("recent edits: the place edited before shows in the next completion's prompt, counted as recent") {
  for (int budget : {256, 0}) {
    INFO("recentTokens " << budget);
    Options o;
    o.debounce_ms = 0;
    o.recent_tokens = budget;
    LspFixture f(nlohmann::json{{"text", "x"}}, o);
    const std::string other = "file:///w/rates.py";
    f.open(other, "RATE = 1\n\ndef rate_for(region):\n    return RATE\n");
    f.open(kPriceUri, kPriceText);
    f.insert(other, 3, 15, " * 2");  // an edit in rates.py ...
    f.insert(kPriceUri, 1, 11, "t");  // ... then in price.py: rates.py's place joins the ring
    f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 12, 2));
    if (budget > 0) {
      CHECK(f.count("extra_tokens_recent") > 0);
    } else {
      CHECK(f.count("extra_tokens_recent") == 0);
    }
  }
}

TEST_CASE("wafer/yank: the yanked lines of another document show in the next completion's prompt, once") {
  TwoDocuments docs;
  LspFixture& f = docs.f;
  f.notify("wafer/yank", yank_range(kRatesUri, 2, 4, 3, 6));  // part of two lines: both whole
  f.notify("wafer/yank", yank_range(kRatesUri, 2, 0, 4, 0));  // the same lines, ending at the next line's start
  f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 2));
  std::vector<ContextFile> recent = recent_in_prompt(f);
  REQUIRE(recent.size() == 1);
  CHECK(recent[0].path == "/w/rates.py");
  CHECK(recent[0].text == "def rate_for(region):\n    return RATE\n");
  nlohmann::json counts = f.counts();
  CHECK(counts.value("yanks", 0) == 2);
  CHECK(counts.value("yanks_added", 0) == 1);

  SECTION("a copied text joins too, after it, and without a document has no name") {
    f.notify("wafer/yank", {{"text", "TAX = 0.2"}});
    f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 1));
    recent = recent_in_prompt(f);
    REQUIRE(recent.size() == 2);
    CHECK(recent[1].path.empty());
    CHECK(recent[1].text == "TAX = 0.2\n");
  }
  SECTION("recentTokens 0: yanks are not kept") {
    f.notify("workspace/didChangeConfiguration", {{"settings", {{"recentTokens", 0}}}});
    f.notify("wafer/yank", {{"text", "TAX = 0.2"}});
    f.notify("workspace/didChangeConfiguration", {{"settings", {{"recentTokens", 256}}}});
    f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 1));
    CHECK(recent_in_prompt(f).size() == 1);
  }
}

TEST_CASE("wafer/yank: malformed or unusable params are ignored: no reply, no change, the server serves on") {
  TwoDocuments docs;
  LspFixture& f = docs.f;
  const size_t before = f.sent().size();
  std::vector<nlohmann::json> bad = {
      nlohmann::json::array({1, 2}), nlohmann::json::array(), nlohmann::json::object(),
      yank_range(kRatesUri, 2, 0, 40, 0),    // past the end
      yank_range(kRatesUri, 3, 0, 2, 0),     // backwards
      yank_range(kRatesUri, 1, 0, 1, 0),     // a blank line
      yank_range("file:///w/closed.py", 0, 0, 1, 0),
  };
  for (const char* text : {
           R"({"text": 5})",
           R"({"text": "   \n\t"})",
           R"({"text": "x", "textDocument": 7})",
           R"({"text": "x", "textDocument": {"uri": 7}})",
           R"({"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}})",
           R"({"textDocument": {"uri": "file:///w/rates.py"}, "range": "0-1"})",
           R"({"textDocument": {"uri": "file:///w/rates.py"}, "range": {"start": {"line": -1, "character": 0}}})",
       })
    bad.push_back(nlohmann::json::parse(text));
  for (const nlohmann::json& p : bad) {
    INFO(p.dump());
    f.notify("wafer/yank", p);
  }
  // Notifications get no reply (what is sent is the log's window/logMessage).
  for (size_t i = before; i < f.sent().size(); ++i) {
    INFO(f.sent()[i].dump());
    CHECK_FALSE(f.sent()[i].contains("id"));
  }
  CHECK(f.sent().size() > before);
  f.request("textDocument/inlineCompletion", LspFixture::inline_params(kPriceUri, 1, 11, 2));
  CHECK(recent_in_prompt(f).empty());
  CHECK(f.counts().value("yanks_added", 0) == 0);
}
