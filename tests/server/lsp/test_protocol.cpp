// LSP struct conversions, and errors that name the offending field.
#include <catch2/catch.hpp>

#include "server/lsp/protocol.h"

using namespace wafer;
using lsp::json;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const jsonrpc::InvalidParams& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("protocol: didChange params with full and incremental changes", "[protocol]") {
  json j = json::parse(R"({"textDocument":{"uri":"file:///a.py","version":3},
    "contentChanges":[{"range":{"start":{"line":0,"character":1},"end":{"line":0,"character":2}},"text":"x"},
                      {"text":"whole"}]})");
  auto p = lsp::parse_params<lsp::DidChangeTextDocumentParams>(j);
  CHECK(p.text_document.uri == "file:///a.py");
  CHECK(p.text_document.version == 3);
  REQUIRE(p.content_changes.size() == 2);
  REQUIRE(p.content_changes[0].range);
  CHECK(p.content_changes[0].range->end == lsp::Position{0, 2});
  CHECK_FALSE(p.content_changes[1].range);
}

TEST_CASE("protocol: completion params with context and partial result token", "[protocol]") {
  auto p = lsp::parse_params<lsp::CompletionParams>(json::parse(
      R"({"textDocument":{"uri":"u"},"position":{"line":4,"character":2},"context":{"triggerKind":1},"partialResultToken":"t1"})"));
  CHECK(p.position == lsp::Position{4, 2});
  CHECK(p.trigger_kind == lsp::kTriggerInvoked);
  CHECK(p.partial_result_token == "t1");
  auto q = lsp::parse_params<lsp::CompletionParams>(json::parse(R"({"textDocument":{"uri":"u"},"position":{"line":0,"character":0}})"));
  CHECK(q.trigger_kind == lsp::kTriggerAutomatic);
  CHECK(q.partial_result_token.is_null());
}

TEST_CASE("protocol: wrong types are reported with the field path", "[protocol]") {
  CHECK(error_of([] {
          lsp::parse_params<lsp::CompletionParams>(json::parse(R"({"textDocument":{"uri":"u"},"position":{"line":"4","character":2}})"));
        }) == "position.line: expected an integer, got string");
  CHECK(error_of([] {
          lsp::parse_params<lsp::DidChangeTextDocumentParams>(json::parse(
              R"({"textDocument":{"uri":"u","version":1},"contentChanges":[{"text":"a"},{"text":5}]})"));
        }) == "contentChanges[1].text: expected a string, got number");
  CHECK(error_of([] { lsp::parse_params<lsp::DidOpenTextDocumentParams>(json::parse(R"({})")); }) == "textDocument: missing");
  CHECK(error_of([] {
          lsp::parse_params<lsp::CompletionParams>(json::parse(R"({"textDocument":{"uri":"u"},"position":{"line":-1,"character":0}})"));
        }) == "position.line: must be >= 0, got -1");
  CHECK(error_of([] { lsp::parse_params<lsp::DidOpenTextDocumentParams>(json::array()); }) ==
        "params: expected an object, got array");
}

TEST_CASE("protocol: initialize params read encodings / progress support and options", "[protocol]") {
  auto p = lsp::parse_params<lsp::InitializeParams>(json::parse(
      R"({"processId":1,"capabilities":{"general":{"positionEncodings":["utf-16","utf-8"]},"window":{"workDoneProgress":true}},
          "initializationOptions":{"model":"m.gguf"},"trace":"verbose"})"));
  CHECK(p.position_encodings == std::vector<std::string>{"utf-16", "utf-8"});
  CHECK(p.work_done_progress);
  CHECK(p.initialization_options["model"] == "m.gguf");
  CHECK(p.trace == "verbose");
  auto empty = lsp::parse_params<lsp::InitializeParams>(json::object());
  CHECK(empty.position_encodings.empty());
  CHECK(empty.initialization_options.is_null());
  // null and [] are what some clients send for "no options".
  for (const char* none : {R"({"initializationOptions":null})", R"({"initializationOptions":[]})"})
    CHECK(lsp::parse_params<lsp::InitializeParams>(json::parse(none)).initialization_options.is_null());
  CHECK_THROWS_AS(lsp::parse_params<lsp::InitializeParams>(json::parse(R"({"initializationOptions":[1]})")),
                  jsonrpc::InvalidParams);
}

TEST_CASE("protocol: results serialize with LSP field names", "[protocol]") {
  lsp::InlineCompletionList list{{{"abc", {{1, 2}, {1, 2}}}}};
  CHECK(json(list) == json::parse(
      R"({"items":[{"insertText":"abc","range":{"start":{"line":1,"character":2},"end":{"line":1,"character":2}}}]})"));
  lsp::CompletionItem item;
  item.label = "l";
  item.filter_text = "l";
  item.text_edit = {{{0, 0}, {0, 0}}, "l"};
  json j = item;
  CHECK(j["textEdit"]["newText"] == "l");
  CHECK(j["kind"] == 1);
  CHECK(json(lsp::CompletionList{})["isIncomplete"] == true);
}
