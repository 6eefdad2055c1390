// LSP types wafer uses, named as in the specification (3.17, and 3.18 for inline
// completion), carrying only the fields wafer reads or writes. Conversions are the free
// to_json/from_json functions nlohmann/json finds by ADL. Readers throw
// jsonrpc::InvalidParams naming the offending field ("position.line: expected an
// unsigned integer, got string"), which the Endpoint answers with -32602.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/document/text_types.h"
#include "server/lsp/jsonrpc.h"

namespace wafer::lsp {

using json = nlohmann::json;

// The document layer's value types under the specification's names.
using PositionEncoding = wafer::PositionEncoding;
using Position = TextPosition;
using Range = TextRange;
using TextDocumentItem = DocumentText;
using TextDocumentContentChangeEvent = TextChange;

struct TextDocumentIdentifier {
  std::string uri;
};

struct VersionedTextDocumentIdentifier {
  std::string uri;
  int64_t version = 0;
};

struct DidOpenTextDocumentParams {
  TextDocumentItem text_document;
};

struct DidChangeTextDocumentParams {
  VersionedTextDocumentIdentifier text_document;
  std::vector<TextDocumentContentChangeEvent> content_changes;
};

struct DidCloseTextDocumentParams {
  TextDocumentIdentifier text_document;
};

// InlineCompletionTriggerKind and CompletionTriggerKind both use 1 for "invoked".
inline constexpr int kTriggerInvoked = 1;
inline constexpr int kTriggerAutomatic = 2;

// textDocument/inlineCompletion and textDocument/completion parameters.
struct CompletionParams {
  TextDocumentIdentifier text_document;
  Position position;
  int trigger_kind = kTriggerAutomatic;  // context.triggerKind
  json partial_result_token;             // null when absent
};

struct InlineCompletionItem {
  std::string insert_text;
  Range range;
};

struct InlineCompletionList {
  std::vector<InlineCompletionItem> items;
};

struct TextEdit {
  Range range;
  std::string new_text;
};

struct CompletionItem {
  std::string label;
  int kind = 1;  // CompletionItemKind.Text
  std::string detail;
  std::string filter_text;
  TextEdit text_edit;
};

struct CompletionList {
  bool is_incomplete = true;  // the client asks again as typing continues
  std::vector<CompletionItem> items;
};

struct InitializeParams {
  std::vector<std::string> position_encodings;  // capabilities.general.positionEncodings
  bool work_done_progress = false;              // capabilities.window.workDoneProgress
  json initialization_options;                  // null when absent
  std::string trace = "off";
  std::string root_uri;  // workspaceFolders[0].uri, else rootUri, else file:// + rootPath ("" none)
  std::vector<std::string> named_roots;  // every folder named: workspaceFolders' uris, rootUri, file:// + rootPath
};

struct DidChangeWorkspaceFoldersParams {
  std::vector<std::string> added;  // event.added[].uri
};

struct SetTraceParams {
  std::string value;
};

void from_json(const json& j, TextDocumentIdentifier& v);
void from_json(const json& j, DidChangeWorkspaceFoldersParams& v);
void from_json(const json& j, VersionedTextDocumentIdentifier& v);
void from_json(const json& j, DidOpenTextDocumentParams& v);
void from_json(const json& j, DidChangeTextDocumentParams& v);
void from_json(const json& j, DidCloseTextDocumentParams& v);
void from_json(const json& j, CompletionParams& v);
void from_json(const json& j, InitializeParams& v);
void from_json(const json& j, SetTraceParams& v);
void to_json(json& j, const InlineCompletionItem& v);
void to_json(json& j, const InlineCompletionList& v);
void to_json(json& j, const TextEdit& v);
void to_json(json& j, const CompletionItem& v);
void to_json(json& j, const CompletionList& v);

// Reads params of type T, naming the field that is wrong; params must be an object.
template <typename T>
T parse_params(const json& params) {
  if (!params.is_object())
    throw jsonrpc::InvalidParams(std::string("params: expected an object, got ") + params.type_name());
  T v;
  from_json(params, v);
  return v;
}

// MessageType of window/logMessage and window/showMessage.
enum class MessageType { kError = 1, kWarning = 2, kInfo = 3, kLog = 4 };

}  // namespace wafer::lsp

namespace wafer {
// Readers and writers of the document layer's types, in their namespace so that
// nlohmann/json finds them by ADL.
void from_json(const nlohmann::json& j, TextPosition& v);
void to_json(nlohmann::json& j, const TextPosition& v);
void from_json(const nlohmann::json& j, TextRange& v);
void to_json(nlohmann::json& j, const TextRange& v);
void from_json(const nlohmann::json& j, DocumentText& v);
void from_json(const nlohmann::json& j, TextChange& v);
}  // namespace wafer
