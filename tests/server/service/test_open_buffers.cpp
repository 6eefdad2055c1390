// The openBuffers setting: definitions from the other open documents go into the prompt's
// extra context, or with the setting off do not; a configuration change takes effect at
// the next request.
#include <catch2/catch.hpp>

#include "tests/server/lsp_fixture.h"

using namespace wafer;
using namespace wafer::test;

namespace {

size_t open_chunks(LspFixture& f) {
  size_t n = 0;
  for (const ContextFile& c : f.engine().last_request().extra)
    if (std::string(c.source) == "open") ++n;
  return n;
}

}  // namespace

TEST_CASE("openBuffers: off leaves the other open documents' definitions out of the prompt") {
  Options o;
  o.debounce_ms = 0;
  LspFixture f(nlohmann::json{{"text", "x"}}, o);
  const std::string price = "file:///w/price.py";
  f.open("file:///w/rates.py", "RATE = 1\n\ndef rate_for(region):\n    return RATE\n");
  f.open(price, "from rates import rate_for\n\ndef price(total):\n    r = rate_for(total)\n    return \n");
  f.request("textDocument/inlineCompletion", LspFixture::inline_params(price, 4, 11, 1));
  CHECK(open_chunks(f) == 1);

  f.notify("workspace/didChangeConfiguration", {{"settings", {{"openBuffers", false}}}});
  CHECK_FALSE(f.server().options().open_buffers);
  f.request("textDocument/inlineCompletion", LspFixture::inline_params(price, 4, 11, 1));
  CHECK(open_chunks(f) == 0);

  f.notify("workspace/didChangeConfiguration", {{"settings", {{"openBuffers", true}}}});
  f.request("textDocument/inlineCompletion", LspFixture::inline_params(price, 4, 11, 1));
  CHECK(open_chunks(f) == 1);
}
