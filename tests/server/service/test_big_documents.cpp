// Documents no editor should send but some do: 100,000 lines, one line of a megabyte, bytes
// that are not UTF-8. The prompt stays inside the window's byte caps, the answer comes, and
// an edit stays cheap for the event loop (no whole-document work per keystroke).
#include <catch2/catch.hpp>

#include <string>

#include "engine/base/utf8.h"
#include "tests/server/lsp_fixture.h"

using namespace wafer;
using namespace wafer::test;
using json = nlohmann::json;

namespace {

// No decoding ahead: the engine's last request is then the completion's own.
Options no_ahead() {
  Options o;
  o.ahead_tokens = 0;
  return o;
}

constexpr int kAutomatic = 2;  // InlineCompletionTriggerKind.Automatic
const char* kUri = "file:///w/big.py";

// Types `typed` at (line, character), asks for a completion there and checks the reply and
// the request the engine got: both sides within the window's byte cap.
void type_and_complete(LspFixture& f, int line, int character, const std::string& typed) {
  const Options defaults;
  for (size_t i = 0; i < typed.size(); ++i) f.insert(kUri, line, character + static_cast<int>(i), typed.substr(i, 1));
  const json reply =
      f.request("textDocument/inlineCompletion",
                LspFixture::inline_params(kUri, line, character + static_cast<int>(typed.size()), kAutomatic));
  INFO(reply.dump().substr(0, 300));
  REQUIRE(reply.contains("result"));
  const CompletionRequest r = f.engine().last_request();
  CHECK(r.prefix.size() <= static_cast<size_t>(defaults.window_bytes));
  CHECK(r.suffix.size() <= static_cast<size_t>(defaults.window_bytes));
  CHECK(r.prefix.ends_with(typed));
  CHECK(is_valid_utf8(r.prefix));
  CHECK(is_valid_utf8(r.suffix));
  // The loop handled every keystroke's edit without a stall (generous: seconds would fail).
  const json stats = f.request("wafer/stats", nullptr)["result"];
  CHECK(stats["latency_ms"]["did_change_ms"]["max"].get<double>() < 1000);
}

}  // namespace

TEST_CASE("big documents: 100,000 lines", "[lsp]") {
  LspFixture f(json{{"text", "x"}}, no_ahead());
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "value_" + std::to_string(i) + " = compute(" + std::to_string(i) + ")\n";
  f.open(kUri, text);
  type_and_complete(f, 50000, 0, "y = ");
}

TEST_CASE("big documents: a single line of a megabyte", "[lsp]") {
  LspFixture f(json{{"text", "x"}}, no_ahead());
  f.open(kUri, "data = '" + std::string(1 << 20, 'a') + "'\nprint(data)\n");
  type_and_complete(f, 0, 500000, "bc");
}

TEST_CASE("big documents: bytes that are not UTF-8", "[lsp]") {
  LspFixture f(json{{"text", "x"}}, no_ahead());
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "s_" + std::to_string(i) + " = '\xff\xfe\xc3(\xed\xa0\x80'\\n";
  // The bytes go on the wire as they are (nlohmann would refuse to write them).
  std::string body = json{{"jsonrpc", "2.0"},
                          {"method", "textDocument/didOpen"},
                          {"params", {{"textDocument", {{"uri", kUri}, {"languageId", "python"}, {"version", 1}, {"text", "@"}}}}}}
                         .dump();
  body.replace(body.find("\"@\""), 3, "\"" + text + "\"");
  f.server().receive(body);
  type_and_complete(f, 1000, 0, "t = ");
}
