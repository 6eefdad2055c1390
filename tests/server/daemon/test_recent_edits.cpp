// The daemon's ring of recent edits (LspServer::note_edit, server/prompt/recent_chunks.h):
// a place edited in one document shows in the prompt of a completion in another, and the
// extra context's tokens are counted per source.
#include <catch2/catch.hpp>

#include "tests/server/lsp_fixture.h"

using namespace wafer;
using namespace wafer::test;

namespace {

uint64_t count(LspFixture& f, const std::string& name) {
  return f.server().stats().to_json()["counts"].value(name, uint64_t{0});
}

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
      CHECK(count(f, "extra_tokens_recent") > 0);
    } else {
      CHECK(count(f, "extra_tokens_recent") == 0);
    }
  }
}
