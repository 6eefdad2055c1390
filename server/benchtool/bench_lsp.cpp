#include "server/benchtool/bench_lsp.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <thread>

#include "server/benchtool/bench_process.h"
#include "server/document/documents.h"
#include "server/lsp/protocol.h"
#include "server/prompt/prompt_paths.h"
#include "server/lsp/framing.h"
#include "server/document/utf8.h"

namespace wafer::bench {
namespace {

using json = nlohmann::json;

std::string join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// Bytes of `line` taken by its first `units` positions in the encoding.
size_t bytes_for_units(std::string_view line, int64_t units, lsp::PositionEncoding enc) {
  size_t i = 0;
  while (i < line.size() && units > 0) {
    size_t n = utf8_sequence_length(line, i);
    n = n ? n : 1;
    units -= enc == lsp::PositionEncoding::kUtf8 ? static_cast<int64_t>(n) : (n == 4 ? 2 : 1);
    i += n;
  }
  return i;
}

// The first suggestion of an inlineCompletion result (list, array or null).
const json* first_item(const json& result) {
  const json* items = result.is_array() ? &result : (result.is_object() ? &result["items"] : nullptr);
  if (!items || !items->is_array() || items->empty()) return nullptr;
  return &(*items)[0];
}

class LspTarget : public BenchTarget {
 public:
  explicit LspTarget(LspTargetOptions o) : opt_(std::move(o)) {}

  std::string name() const override { return opt_.name.empty() ? join(opt_.argv) : opt_.name; }

  Status open(const Trace& trace) override {
    if (Status s = proc_.start(opt_.argv); !s) return s;
    uri_ = uri_from_path(trace.path);
    json caps = {{"general", {{"positionEncodings", {"utf-8", "utf-16"}}}},
                 {"window", {{"workDoneProgress", true}}},
                 {"textDocument",
                  {{"synchronization", {{"dynamicRegistration", false}}}, {"inlineCompletion", json::object()}}}};
    // The folder an editor would have open (the repository holding the file), as the root.
    json params = {{"processId", nullptr}, {"rootUri", uri_from_path(workspace_root_of(trace.path))}, {"capabilities", caps},
                   {"clientInfo", {{"name", "wafer bench"}}}};
    if (!opt_.initialization_options.is_null()) params["initializationOptions"] = opt_.initialization_options;
    Result<json> init = call("initialize", params, opt_.start_timeout_ms);
    if (!init) return init.error();
    const json& caps_back = (*init)["capabilities"];
    if (caps_back.value("positionEncoding", std::string("utf-16")) == "utf-8") enc_ = lsp::PositionEncoding::kUtf8;
    const json sync = caps_back.value("textDocumentSync", json());
    // TextDocumentSyncKind, as the number or in the options' "change" (2: incremental);
    // compared as JSON, so a server's fraction or huge number is never converted to int.
    const json kind = sync.is_object() ? sync.value("change", json(1)) : sync;
    incremental_ = kind.is_number_integer() && kind == 2;
    if (Status s = send({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", json::object()}}); !s) return s;
    if (Status s = send({{"jsonrpc", "2.0"},
                         {"method", "textDocument/didOpen"},
                         {"params", {{"textDocument", {{"uri", uri_}, {"languageId", trace.language_id}, {"version", 1},
                                                       {"text", trace.text}}}}}});
        !s)
      return s;
    wait_for_workspace_index();
    return {};
  }

  // The typing starts once wafer's workspace index is built, as in a project opened a
  // while before (the build runs at low priority, but on a 2-core machine it would still
  // share the first minute of typing). Other servers, or wafer without an index, go on at once.
  void wait_for_workspace_index() {
    const auto until = Clock::now() + std::chrono::seconds(180);
    while (Clock::now() < until) {
      Result<json> stats = call("wafer/stats", json::object(), 5000);
      if (!stats || !stats->is_object()) return;
      const json index = stats->value("workspace_index", json());
      if (!index.is_object() || !index.value("enabled", false) || index.value("root", json()).is_null() ||
          index.contains("files"))
        return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  Status change(const TraceEdit& e, const std::string& before, const DocState& after) override {
    json change;
    if (incremental_) {
      auto snap = make_snapshot(uri_, "", 0, before);
      change = {{"range", {{"start", position_at(*snap, e.offset, enc_)},
                           {"end", position_at(*snap, e.offset + e.erase, enc_)}}},
                {"text", e.insert}};
    } else {
      change = {{"text", after.text}};
    }
    return send({{"jsonrpc", "2.0"},
                 {"method", "textDocument/didChange"},
                 {"params", {{"textDocument", {{"uri", uri_}, {"version", after.version}}},
                             {"contentChanges", json::array({change})}}}});
  }

  Status request(int id, const DocState& doc, bool invoked) override {
    auto snap = make_snapshot(uri_, "", 0, doc.text);
    lsp::Position p = position_at(*snap, doc.cursor, enc_);
    size_t line_start = snap->line_starts[static_cast<size_t>(p.line)];
    cursors_[id] = {p, doc.text.substr(line_start, doc.cursor - line_start)};
    json params = {{"textDocument", {{"uri", uri_}}},
                   {"position", p},
                   {"context", {{"triggerKind", invoked ? 1 : 2}, {"selectedCompletionInfo", nullptr}}}};
    if (opt_.stream) params["partialResultToken"] = "wafer-bench/" + std::to_string(id);
    return send({{"jsonrpc", "2.0"}, {"id", id}, {"method", "textDocument/inlineCompletion"}, {"params", params}});
  }

  void cancel(int id) override {
    (void)send({{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", id}}}});
  }

  Status poll(Clock::time_point deadline, std::vector<TargetEvent>& out) override {
    size_t before = out.size();
    do {
      if (Status s = read_messages(deadline, &out); !s) return s;
    } while (out.size() == before && Clock::now() < deadline);
    return {};
  }

  json close() override {
    json stats = nullptr;
    if (Result<json> s = call("wafer/stats", json::object(), 2000); s) stats = *s;
    (void)call("shutdown", nullptr, 5000);
    (void)send({{"jsonrpc", "2.0"}, {"method", "exit"}});
    proc_.close_stdin();
    proc_.wait(5000);
    return stats;
  }

 private:
  struct Cursor {
    lsp::Position position;
    std::string line_prefix;  // the cursor line's text before the cursor
  };

  Status send(const json& message) { return proc_.write(encode_frame(message.dump())); }

  // A control request (string id) answered synchronously; completion events that arrive
  // meanwhile are dropped (calls happen outside the replay).
  Result<json> call(const std::string& method, const json& params, double timeout_ms) {
    std::string id = "bench-" + method;
    json m = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.is_null()) m["params"] = params;
    if (Status s = send(m); !s) return s.error();
    auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(timeout_ms));
    control_.erase(id);
    while (!control_.count(id)) {
      if (Clock::now() >= deadline) return make_error(method + ": no answer from the server in time");
      if (Status s = read_messages(deadline, nullptr); !s) return s.error();
    }
    json reply = control_[id];
    if (reply.contains("error"))
      return make_error(method + " failed: " + reply["error"].value("message", std::string("error")));
    return reply.value("result", json());
  }

  Status read_messages(Clock::time_point deadline, std::vector<TargetEvent>* out) {
    std::string bytes;
    bool open = proc_.read(deadline, bytes);
    Clock::time_point at = Clock::now();
    std::vector<FrameEvent> frames;
    decoder_.feed(bytes, frames);
    for (const FrameEvent& f : frames) {
      if (f.kind != FrameEvent::Kind::kMessage) continue;
      json m = json::parse(f.body, nullptr, false);
      if (m.is_discarded() || !m.is_object()) continue;
      dispatch(m, at, out);
    }
    if (!open) {
      int code = proc_.wait(1000);
      return make_error("the server exited (status " + std::to_string(code) + ")" +
                        (proc_.stderr_tail().empty() ? "" : ": " + proc_.stderr_tail()));
    }
    return {};
  }

  void dispatch(const json& m, Clock::time_point at, std::vector<TargetEvent>* out) {
    if (m.contains("method")) {
      if (m.contains("id")) (void)send({{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", nullptr}});
      if (m["method"] == "$/progress" && out) progress(m.value("params", json::object()), at, *out);
      if (m["method"] == "window/logMessage" || m["method"] == "window/showMessage") log_message(m.value("params", json()));
      return;
    }
    if (!m.contains("id")) return;
    if (m["id"].is_string()) {
      control_[m["id"].get<std::string>()] = m;
      return;
    }
    if (!m["id"].is_number_integer() || !out) return;
    TargetEvent e;
    e.request = m["id"].get<int>();
    e.at = at;
    if (m.contains("error")) {
      e.kind = TargetEvent::Kind::kError;
      e.error_code = m["error"].value("code", 0);
      e.error = m["error"].value("message", std::string());
    } else {
      const json& result = m.contains("result") ? m["result"] : json();
      e.kind = TargetEvent::Kind::kFinal;
      e.text = suggestion(e.request, result);
      if (result.is_object() && result.contains("wafer")) {
        const json& w = result["wafer"];
        e.served_by = w.value("served_by", std::string());
        e.tokens_reused = w.value("tokens_reused", -1);
        e.tokens_prefilled = w.value("tokens_prefilled", -1);
        e.tokens_generated = w.value("tokens_generated", -1);
        e.superseded = w.value("outcome", std::string()) == "superseded";
      }
    }
    cursors_.erase(e.request);
    out->push_back(std::move(e));
  }

  void progress(const json& params, Clock::time_point at, std::vector<TargetEvent>& out) {
    const json token = params.value("token", json());
    if (!token.is_string()) return;
    std::string t = token.get<std::string>();
    const std::string prefix = "wafer-bench/";
    if (!t.starts_with(prefix)) return;
    TargetEvent e;
    e.kind = TargetEvent::Kind::kPartial;
    e.request = std::atoi(t.c_str() + prefix.size());
    e.at = at;
    e.text = suggestion(e.request, params.value("value", json()));
    out.push_back(std::move(e));
  }

  void log_message(const json& params) {
    if (!params.is_object() || params.value("type", 0) != 1) return;  // MessageType.Error
    std::string text = params.value("message", std::string());
    if (errors_.size() < 5 && std::find(errors_.begin(), errors_.end(), text) == errors_.end()) errors_.push_back(text);
  }

 public:
  std::vector<std::string> errors() const override { return errors_; }

 private:
  // The text the suggestion inserts at the cursor: a range starting before the cursor on
  // its line repeats the typed text, which is dropped.
  std::string suggestion(int id, const json& result) {
    const json* item = first_item(result);
    if (!item || !item->is_object()) return "";
    const json& it = (*item)["insertText"];
    std::string text = it.is_string() ? it.get<std::string>() : it.is_object() ? it.value("value", std::string()) : "";
    auto c = cursors_.find(id);
    if (c == cursors_.end() || !item->contains("range")) return text;
    const json& start = (*item)["range"]["start"];
    if (!start.is_object() || start.value("line", -1) != c->second.position.line) return text;
    int64_t units = start.value("character", int64_t{0});
    if (units >= c->second.position.character) return text;
    std::string typed = c->second.line_prefix.substr(bytes_for_units(c->second.line_prefix, units, enc_));
    return text.starts_with(typed) ? text.substr(typed.size()) : text;
  }

  LspTargetOptions opt_;
  ChildProcess proc_;
  FrameDecoder decoder_;
  std::string uri_;
  lsp::PositionEncoding enc_ = lsp::PositionEncoding::kUtf16;
  bool incremental_ = true;
  std::map<std::string, json> control_;
  std::map<int, Cursor> cursors_;
  std::vector<std::string> errors_;
};

}  // namespace

std::unique_ptr<BenchTarget> make_lsp_target(LspTargetOptions options) {
  return std::make_unique<LspTarget>(std::move(options));
}

}  // namespace wafer::bench
