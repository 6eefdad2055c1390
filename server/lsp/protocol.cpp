#include "server/lsp/protocol.h"

#include "server/prompt/prompt_paths.h"

namespace wafer::lsp {
namespace {

using jsonrpc::InvalidParams;

[[noreturn]] void wrong_type(std::string_view name, const char* expected, const json& v) {
  throw InvalidParams(std::string(name) + ": expected " + expected + ", got " + v.type_name());
}

void read_value(const json& v, std::string_view name, std::string& out) {
  if (!v.is_string()) wrong_type(name, "a string", v);
  out = v.get<std::string>();
}

void read_value(const json& v, std::string_view name, int64_t& out) {
  if (!v.is_number_integer()) wrong_type(name, "an integer", v);
  out = v.get<int64_t>();
}

void read_value(const json& v, std::string_view name, bool& out) {
  if (!v.is_boolean()) wrong_type(name, "a boolean", v);
  out = v.get<bool>();
}

// Structs: their own from_json, with the field name prefixed to nested errors.
template <typename T>
void read_value(const json& v, std::string_view name, T& out) {
  if (!v.is_object()) wrong_type(name, "an object", v);
  try {
    from_json(v, out);
  } catch (const InvalidParams& e) {
    throw InvalidParams(std::string(name) + "." + e.what());
  }
}

template <typename T>
void read_value(const json& v, std::string_view name, std::vector<T>& out) {
  if (!v.is_array()) wrong_type(name, "an array", v);
  out.clear();
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    T item{};
    read_value(v[i], std::string(name) + "[" + std::to_string(i) + "]", item);
    out.push_back(std::move(item));
  }
}

template <typename T>
void read(const json& j, std::string_view name, T& out) {
  auto it = j.find(name);
  if (it == j.end()) throw InvalidParams(std::string(name) + ": missing");
  read_value(*it, name, out);
}

// Absent or null leaves out unchanged.
template <typename T>
bool read_optional(const json& j, std::string_view name, T& out) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return false;
  read_value(*it, name, out);
  return true;
}

void read_unsigned(const json& j, std::string_view name, int64_t& out) {
  read(j, name, out);
  if (out < 0) throw InvalidParams(std::string(name) + ": must be >= 0, got " + std::to_string(out));
}

}  // namespace

}  // namespace wafer::lsp

namespace wafer {

void from_json(const nlohmann::json& j, TextPosition& v) {
  lsp::read_unsigned(j, "line", v.line);
  lsp::read_unsigned(j, "character", v.character);
}
void to_json(nlohmann::json& j, const TextPosition& v) { j = nlohmann::json{{"line", v.line}, {"character", v.character}}; }

void from_json(const nlohmann::json& j, TextRange& v) {
  lsp::read(j, "start", v.start);
  lsp::read(j, "end", v.end);
}
void to_json(nlohmann::json& j, const TextRange& v) { j = nlohmann::json{{"start", v.start}, {"end", v.end}}; }

void from_json(const nlohmann::json& j, DocumentText& v) {
  lsp::read(j, "uri", v.uri);
  lsp::read(j, "languageId", v.language_id);
  lsp::read(j, "version", v.version);
  lsp::read(j, "text", v.text);
}

void from_json(const nlohmann::json& j, TextChange& v) {
  TextRange r;
  if (lsp::read_optional(j, "range", r)) v.range = r;
  lsp::read(j, "text", v.text);
}

}  // namespace wafer

namespace wafer::lsp {

void from_json(const json& j, TextDocumentIdentifier& v) { read(j, "uri", v.uri); }

void from_json(const json& j, VersionedTextDocumentIdentifier& v) {
  read(j, "uri", v.uri);
  read(j, "version", v.version);
}

void from_json(const json& j, DidOpenTextDocumentParams& v) { read(j, "textDocument", v.text_document); }

void from_json(const json& j, DidChangeTextDocumentParams& v) {
  read(j, "textDocument", v.text_document);
  read(j, "contentChanges", v.content_changes);
}

void from_json(const json& j, DidCloseTextDocumentParams& v) { read(j, "textDocument", v.text_document); }

namespace {
struct CompletionContext {
  int64_t trigger_kind = kTriggerAutomatic;
};
void from_json(const json& j, CompletionContext& v) { read(j, "triggerKind", v.trigger_kind); }
}  // namespace

void from_json(const json& j, CompletionParams& v) {
  read(j, "textDocument", v.text_document);
  read(j, "position", v.position);
  CompletionContext context;
  if (read_optional(j, "context", context)) v.trigger_kind = static_cast<int>(context.trigger_kind);
  if (auto t = j.find("partialResultToken"); t != j.end() && !t->is_null()) {
    if (!t->is_string() && !t->is_number_integer()) wrong_type("partialResultToken", "an integer or a string", *t);
    v.partial_result_token = *t;
  }
}

namespace {
struct GeneralCapabilities {
  std::vector<std::string> position_encodings;
};
void from_json(const json& j, GeneralCapabilities& v) { read_optional(j, "positionEncodings", v.position_encodings); }
struct WindowCapabilities {
  bool work_done_progress = false;
};
void from_json(const json& j, WindowCapabilities& v) { read_optional(j, "workDoneProgress", v.work_done_progress); }
struct ClientCapabilities {
  GeneralCapabilities general;
  WindowCapabilities window;
};
void from_json(const json& j, ClientCapabilities& v) {
  read_optional(j, "general", v.general);
  read_optional(j, "window", v.window);
}
}  // namespace

void from_json(const json& j, InitializeParams& v) {
  ClientCapabilities caps;
  read_optional(j, "capabilities", caps);
  v.position_encodings = std::move(caps.general.position_encodings);
  v.work_done_progress = caps.window.work_done_progress;
  // null and an empty array both mean "no options": some clients send [] for an unset
  // LSPAny.
  if (auto o = j.find("initializationOptions"); o != j.end() && !o->is_null() && !(o->is_array() && o->empty())) {
    if (!o->is_object()) wrong_type("initializationOptions", "an object", *o);
    v.initialization_options = *o;
  }
  read_optional(j, "trace", v.trace);
  // The workspace root only names files in prompts: a missing or odd value is not an error.
  if (auto f = j.find("workspaceFolders"); f != j.end() && f->is_array() && !f->empty() && (*f)[0].is_object()) {
    if (auto u = (*f)[0].find("uri"); u != (*f)[0].end() && u->is_string()) v.root_uri = u->get<std::string>();
  }
  if (auto u = j.find("rootUri"); v.root_uri.empty() && u != j.end() && u->is_string()) v.root_uri = u->get<std::string>();
  if (auto u = j.find("rootPath"); v.root_uri.empty() && u != j.end() && u->is_string() && !u->get<std::string>().empty())
    v.root_uri = "file://" + u->get<std::string>();
  // Every folder the client names, for the allowed roots (index/allowed_roots.h): an odd
  // value is named as it is, so that it is refused rather than overlooked.
  if (auto f = j.find("workspaceFolders"); f != j.end() && f->is_array())
    for (const json& folder : *f)
      if (auto u = folder.is_object() ? folder.find("uri") : folder.end(); folder.is_object() && u != folder.end())
        v.named_roots.push_back(u->is_string() ? u->get<std::string>() : u->dump());
  if (auto u = j.find("rootUri"); u != j.end() && !u->is_null())
    v.named_roots.push_back(u->is_string() ? u->get<std::string>() : u->dump());
  if (auto u = j.find("rootPath"); u != j.end() && !u->is_null() && !(u->is_string() && u->get<std::string>().empty()))
    v.named_roots.push_back(u->is_string() ? uri_from_path(u->get<std::string>()) : u->dump());
}

void from_json(const json& j, DidChangeWorkspaceFoldersParams& v) {
  if (!j.is_object()) wrong_type("params", "an object", j);
  auto e = j.find("event");
  if (e == j.end() || !e->is_object()) return;
  auto added = e->find("added");
  if (added == e->end() || !added->is_array()) return;
  for (const json& folder : *added)
    if (folder.is_object())
      if (auto u = folder.find("uri"); u != folder.end()) v.added.push_back(u->is_string() ? u->get<std::string>() : u->dump());
}

void from_json(const json& j, SetTraceParams& v) { read(j, "value", v.value); }

void to_json(json& j, const InlineCompletionItem& v) { j = json{{"insertText", v.insert_text}, {"range", v.range}}; }
void to_json(json& j, const InlineCompletionList& v) { j = json{{"items", v.items}}; }
void to_json(json& j, const TextEdit& v) { j = json{{"range", v.range}, {"newText", v.new_text}}; }

void to_json(json& j, const CompletionItem& v) {
  j = json{{"label", v.label}, {"kind", v.kind}, {"textEdit", v.text_edit}, {"filterText", v.filter_text}};
  if (!v.detail.empty()) j["detail"] = v.detail;
}

void to_json(json& j, const CompletionList& v) { j = json{{"isIncomplete", v.is_incomplete}, {"items", v.items}}; }

}  // namespace wafer::lsp
