#include "server/lsp/lsp_server.h"

#include <algorithm>
#include <chrono>

#include "engine/base/version.h"
#include "server/lsp/completion_result.h"
#include "server/lsp/settings.h"
#include "server/lsp/stats_json.h"
#include "server/index/allowed_roots.h"
#include "server/service/service_options.h"

namespace wafer {

using json = nlohmann::json;
using jsonrpc::Reply;

LspServer::LspServer(uv_loop_t* loop, Options options, Hooks hooks, Logger& log)
    : hooks_(std::move(hooks)),
      log_(log),
      endpoint_([this](std::string body) { hooks_.send(std::move(body)); },
                [this](const std::string& m) { log_.warn(m); }),
      options_(std::move(options)),
      service_(loop, service_options(options_), log, *this) {
  log_.set_forward([this](LogLevel level, const std::string& m) {
    lsp::MessageType t = level == LogLevel::kError     ? lsp::MessageType::kError
                         : level == LogLevel::kWarning ? lsp::MessageType::kWarning
                                                       : lsp::MessageType::kInfo;
    log_message(t, m);
  });
  endpoint_.set_gate([this](const jsonrpc::Message& m) { return gate(m); });
  register_handlers();
}

LspServer::~LspServer() {
  close();
  log_.set_forward(nullptr);
  *alive_ = false;
}

void LspServer::close() { service_.close(); }

void LspServer::register_handlers() {
  endpoint_.on_request("initialize", [this](const json& p, Reply r) { on_initialize(p, std::move(r)); });
  endpoint_.on_notification("initialized", [this](const json&) { service_.start(); });
  endpoint_.on_request("shutdown", [this](const json&, Reply r) { on_shutdown(std::move(r)); });
  endpoint_.on_notification("exit", [this](const json&) { on_exit(); });
  endpoint_.on_notification("$/setTrace", [this](const json& p) { trace_ = lsp::parse_params<lsp::SetTraceParams>(p).value; });
  endpoint_.on_notification("workspace/didChangeConfiguration", [this](const json& p) { on_did_change_configuration(p); });
  endpoint_.on_notification("textDocument/didOpen", [this](const json& p) {
    // A notification has no reply: a document past the limits is a message to the user.
    if (Status st = service_.open(lsp::parse_params<lsp::DidOpenTextDocumentParams>(p).text_document); !st)
      show_message(lsp::MessageType::kError, "wafer: " + st.error().message);
  });
  endpoint_.on_notification("textDocument/didChange", [this](const json& p) { on_did_change(p); });
  endpoint_.on_notification("textDocument/didClose", [this](const json& p) {
    service_.close(lsp::parse_params<lsp::DidCloseTextDocumentParams>(p).text_document.uri);
  });
  endpoint_.on_notification("textDocument/didSave", [this](const json& p) {
    service_.file_changed(lsp::parse_params<lsp::DidCloseTextDocumentParams>(p).text_document.uri);
  });
  endpoint_.on_notification("workspace/didChangeWatchedFiles", [this](const json& p) { on_did_change_watched_files(p); });
  endpoint_.on_notification("workspace/didChangeWorkspaceFolders",
                            [this](const json& p) { on_did_change_workspace_folders(p); });
  // Show/accept feedback as Copilot's language server names it (statistics).
  endpoint_.on_notification("textDocument/didShowCompletion", [this](const json& p) { on_completion_feedback(p, false); });
  endpoint_.on_notification("textDocument/didPartiallyAcceptCompletion",
                            [this](const json& p) { on_completion_feedback(p, true); });
  endpoint_.on_request("textDocument/inlineCompletion",
                       [this](const json& p, Reply r) { on_completion(p, std::move(r), /*inline_kind=*/true); });
  endpoint_.on_request("textDocument/completion",
                       [this](const json& p, Reply r) { on_completion(p, std::move(r), /*inline_kind=*/false); });
  endpoint_.on_request("wafer/stats", [this](const json&, Reply r) { on_stats(std::move(r)); });
  endpoint_.on_notification("wafer/warm", [this](const json& p) {
    auto w = lsp::parse_params<lsp::CompletionParams>(p);
    if (Status st = service_.warm(w.text_document.uri, w.position); !st) throw jsonrpc::InvalidParams(st.error().message);
  });
  endpoint_.on_notification("wafer/yank", [this](const json& p) { on_yank(p); });
  endpoint_.on_notification("wafer/modelsChanged", [this](const json&) { service_.models_changed(); });
}

std::optional<jsonrpc::Error> LspServer::gate(const jsonrpc::Message& m) {
  bool request = m.kind == jsonrpc::Message::Kind::kRequest;
  if (m.method == "exit") return std::nullopt;
  if (phase_ == Phase::kUninitialized) {
    if (request && m.method == "initialize") return std::nullopt;
    return jsonrpc::Error{jsonrpc::kServerNotInitialized, "server not initialized: '" + m.method + "' before 'initialize'"};
  }
  if (phase_ == Phase::kShutdown)
    return jsonrpc::Error{jsonrpc::kInvalidRequest, "the server is shut down: only 'exit' is accepted, got '" + m.method + "'"};
  // A client must not pile up work (and memory) by never waiting for answers; shutdown
  // always gets through.
  const size_t max_pending = static_cast<size_t>(std::max(options_.max_pending_requests, 1));
  if (request && m.method != "shutdown" && endpoint_.pending_requests() >= max_pending)
    return jsonrpc::Error{jsonrpc::kRequestFailed, "too many requests in flight: the limit is " +
                                                       std::to_string(max_pending) + " (--max-pending-requests); '" +
                                                       m.method + "' is refused, send it again later"};
  return std::nullopt;
}

void LspServer::on_initialize(const json& params, Reply reply) {
  if (initialize_seen_) {
    reply.error({jsonrpc::kInvalidRequest, "initialize may only be sent once"});
    return;
  }
  auto p = lsp::parse_params<lsp::InitializeParams>(params);
  // A listening daemon serves only a workspace inside the folders its owner allows; the
  // client may send initialize again with another folder.
  const AllowedRoots allowed = allowed_roots(options_);
  for (const std::string& uri : p.named_roots)
    if (Status st = check_allowed_root_uri(allowed, uri); !st) {
      log_.warn("refused initialize: " + st.error().message);
      reply.error({jsonrpc::kInvalidParams, "wafer: " + st.error().message});
      return;
    }
  Options next = options_;
  if (Status st = apply_settings(next, p.initialization_options); !st)
    throw jsonrpc::InvalidParams("initializationOptions." + st.error().message);
  configure(std::move(next));
  lsp::PositionEncoding encoding = lsp::PositionEncoding::kUtf16;
  for (const std::string& e : p.position_encodings)
    if (e == "utf-8") encoding = lsp::PositionEncoding::kUtf8;
  service_.set_position_encoding(encoding);
  client_progress_ = p.work_done_progress;
  trace_ = p.trace;
  service_.set_workspace_root(p.root_uri);
  initialize_seen_ = true;
  phase_ = Phase::kInitialized;
  json caps = {
      {"positionEncoding", to_string(encoding)},
      {"textDocumentSync", {{"openClose", true}, {"change", 2 /* incremental */}}},
      {"inlineCompletionProvider", true},
      {"completionProvider", {{"resolveProvider", false}}},
  };
  reply.result({{"capabilities", caps}, {"serverInfo", {{"name", "wafer"}, {"version", version()}}}});
}

void LspServer::on_shutdown(Reply reply) {
  phase_ = Phase::kShutdown;
  reply.result(nullptr);
}

void LspServer::on_exit() {
  if (exited_) return;
  exited_ = true;
  int code = phase_ == Phase::kShutdown ? 0 : 1;
  log_.debug("exit notification; exit code " + std::to_string(code));
  close();
  hooks_.exit(code);
}

void LspServer::input_closed(bool mid_message, const std::string& detail) {
  if (exited_) return;
  if (mid_message) log_.warn("input closed in the middle of a message (" + detail + ")");
  else if (!detail.empty()) log_.warn("connection lost: " + detail);
  else log_.debug("input closed");
  on_exit();
}

void LspServer::on_did_change_configuration(const json& params) {
  if (!params.is_object()) throw jsonrpc::InvalidParams("params: expected an object");
  auto it = params.find("settings");
  if (it == params.end()) return;
  Options next = options_;
  if (Status st = apply_settings(next, *it); !st) {
    show_message(lsp::MessageType::kWarning, "wafer: settings ignored: " + st.error().message);
    return;
  }
  configure(std::move(next));
}

void LspServer::configure(Options next) {
  const bool reload = engine_changed(options_, next);
  options_ = std::move(next);
  service_.configure(service_options(options_), reload);
}

void LspServer::on_did_change(const json& params) {
  auto p = lsp::parse_params<lsp::DidChangeTextDocumentParams>(params);
  // A change that cannot be applied is logged by the service (a notification has no reply).
  (void)service_.change(p.text_document.uri, p.text_document.version, p.content_changes);
}

// The daemon indexes the one folder initialize named; an added folder outside the allowed
// roots is refused aloud (a notification has no reply), the others change nothing.
void LspServer::on_did_change_workspace_folders(const json& params) {
  auto p = lsp::parse_params<lsp::DidChangeWorkspaceFoldersParams>(params);
  const AllowedRoots allowed = allowed_roots(options_);
  for (const std::string& uri : p.added)
    if (Status st = check_allowed_root_uri(allowed, uri); !st) {
      log_.warn("refused a workspace folder: " + st.error().message);
      show_message(lsp::MessageType::kError, "wafer: " + st.error().message);
    }
}

void LspServer::on_did_change_watched_files(const json& params) {
  const auto changes = params.find("changes");
  if (changes == params.end() || !changes->is_array()) return;
  for (const json& c : *changes)
    if (c.is_object() && c.contains("uri") && c["uri"].is_string()) service_.file_changed(c["uri"].get<std::string>());
}

// Text the user yanked or copied joins the ring of recent chunks: the whole lines of a range
// of an open document ({"textDocument", "range"}), or a text ({"text"}, with an optional
// "textDocument" naming where it came from, open or not). Malformed params throw
// InvalidParams, which the endpoint logs (a notification gets no reply).
void LspServer::on_yank(const json& params) {
  auto object = [](const json& v, const std::string& name) -> const json& {
    if (!v.is_object()) throw jsonrpc::InvalidParams(name + ": expected an object, got " + v.type_name());
    return v;
  };
  object(params, "params");
  std::string uri;
  if (auto it = params.find("textDocument"); it != params.end())
    uri = lsp::parse_params<lsp::TextDocumentIdentifier>(object(*it, "textDocument")).uri;
  auto range_it = params.find("range");
  auto text_it = params.find("text");
  if (range_it != params.end() && uri.empty())
    throw jsonrpc::InvalidParams("textDocument: a range needs the document it is in");
  if (range_it == params.end() && (text_it == params.end() || !text_it->is_string()))
    throw jsonrpc::InvalidParams("expected a textDocument and a range, or a text (a string)");
  if (range_it != params.end())
    (void)service_.yank_range(uri, lsp::parse_params<lsp::Range>(object(*range_it, "range")));
  else
    service_.yank_text(uri, text_it->get_ref<const std::string&>());
}

void LspServer::on_completion_feedback(const json& params, bool partial_accept) {
  if (!partial_accept) return service_.shown();
  // acceptedLength: how much of the item the user took (accept word / accept line).
  std::optional<uint64_t> length;
  if (params.is_object()) {
    auto it = params.find("acceptedLength");
    if (it != params.end() && it->is_number_unsigned()) length = it->get<uint64_t>();
  }
  service_.partially_accepted(length);
}

namespace {

// One completion request's way back: the service's answer as an LSP result (or the
// RequestCancelled error), and its streamed text as $/progress values (a wafer extension
// for inlineCompletion, which has no standard partial results: each value is the whole
// suggestion so far; the final reply carries the complete result as usual).
class CompletionReply final : public CompletionReceiver {
 public:
  CompletionReply(Reply reply, bool inline_kind, json partial_token, jsonrpc::Endpoint& endpoint,
                  std::shared_ptr<bool> alive)
      : reply_(std::move(reply)),
        inline_kind_(inline_kind),
        partial_token_(std::move(partial_token)),
        endpoint_(endpoint),
        alive_(std::move(alive)) {}

  Reply& reply() { return reply_; }

  void partial(const std::string& so_far, const TextPosition& cursor) override {
    if (!*alive_ || partial_token_.is_null()) return;
    endpoint_.notify("$/progress", {{"token", partial_token_}, {"value", inline_completion_result(so_far, cursor)}});
  }

  void answer(CompletionAnswer a) override {
    using Outcome = CompletionAnswer::Outcome;
    switch (a.outcome) {
      case Outcome::kCancelled: reply_.error({jsonrpc::kRequestCancelled, "request cancelled"}); return;
      case Outcome::kInvalid: reply_.error({jsonrpc::kInvalidParams, a.error}); return;
      case Outcome::kSuperseded: {
        // RequestCancelled is for cancellations the client asked for, and inline completion
        // is not server-cancellable (ServerCancelled), so a superseded request gets "no
        // suggestion", marked for clients and `wafer bench` that tell it apart.
        json r = result({}, a.cursor);
        r["wafer"] = {{"outcome", "superseded"}};
        reply_.result(std::move(r));
        return;
      }
      case Outcome::kSuggestions: break;
    }
    json r = result(a.suggestions, a.cursor);
    // A wafer extension (clients ignore unknown fields): who answered and what it cost, for
    // `wafer bench` and editors' status lines.
    if (inline_kind_ && !a.served_by.empty()) {
      r["wafer"] = {{"served_by", a.served_by}};
      if (a.cost) {
        r["wafer"]["tokens_reused"] = a.cost->tokens_reused;
        r["wafer"]["tokens_prefilled"] = a.cost->tokens_prefilled;
        r["wafer"]["tokens_generated"] = a.cost->tokens_generated;
        r["wafer"]["engine_ms"] = a.cost->engine_ms;
        r["wafer"]["debounce_ms"] = a.cost->debounce_ms;
        if (a.cost->alternatives_ms) r["wafer"]["alternatives_ms"] = *a.cost->alternatives_ms;
      }
      // The confidence gate held the suggestion back: a client takes back any text of it
      // that streamed (an empty final reply alone would leave that text standing).
      if (a.held_back) r["wafer"]["outcome"] = "held_back";
    }
    reply_.result(std::move(r));
  }

 private:
  json result(const std::vector<std::string>& suggestions, const TextPosition& cursor) const {
    if (inline_kind_) return inline_completion_result(suggestions, cursor);
    return completion_result(suggestions.empty() ? std::string() : suggestions.front(), cursor);
  }

  Reply reply_;
  bool inline_kind_;
  json partial_token_;
  jsonrpc::Endpoint& endpoint_;
  std::shared_ptr<bool> alive_;
};

}  // namespace

void LspServer::on_completion(const json& params, Reply&& reply, bool inline_kind) {
  auto p = lsp::parse_params<lsp::CompletionParams>(params);
  CompletionQuery q;
  q.uri = p.text_document.uri;
  q.position = p.position;
  q.trigger = p.trigger_kind == lsp::kTriggerInvoked ? Trigger::kInvoked : Trigger::kAutomatic;
  q.kind = inline_kind ? CompletionKind::kInline : CompletionKind::kListItem;
  q.stream = inline_kind && !p.partial_result_token.is_null();
  auto receiver = std::make_shared<CompletionReply>(std::move(reply), inline_kind,
                                                    q.stream ? p.partial_result_token : json(), endpoint_, alive_);
  Result<CompletionService::RequestId> started = service_.complete(q, receiver);
  if (!started) {
    // The request is still unanswered: the endpoint answers InvalidParams with the message.
    reply = std::move(receiver->reply());
    throw jsonrpc::InvalidParams(started.error().message);
  }
  if (!receiver->reply().answered())
    receiver->reply().on_cancel([this, request = *started, alive = alive_] {
      if (*alive) service_.cancel(request);
    });
}

void LspServer::on_stats(Reply reply) {
  reply.result(stats_json(service_.stats(), service_.status(), options_, endpoint_.pending_requests()));
}

void LspServer::show(Level level, const std::string& message) {
  show_message(level == Level::kError     ? lsp::MessageType::kError
               : level == Level::kWarning ? lsp::MessageType::kWarning
                                          : lsp::MessageType::kInfo,
               message);
}

// Work-done progress, if the client supports it: create the token, begin once the client
// acknowledged it, end when loading finishes.
void LspServer::model_loading(const std::string& what) {
  progress_ = std::make_shared<Progress>();
  if (!client_progress_) return;
  auto progress = progress_;
  progress->token = "wafer/load-model/" + std::to_string(++progress_tokens_);
  endpoint_.call("window/workDoneProgress/create", {{"token", progress->token}},
                 [this, progress, what, alive = alive_](const json&, const jsonrpc::Error* err) {
                   if (!*alive || err || progress->finished) return;
                   progress->begun = true;
                   endpoint_.notify("$/progress", {{"token", progress->token},
                                                   {"value", {{"kind", "begin"}, {"title", "wafer: loading model"}, {"message", what}}}});
                 });
}

void LspServer::model_loaded(bool ok) {
  if (!progress_) return;
  progress_->finished = true;
  if (progress_->begun)
    endpoint_.notify("$/progress", {{"token", progress_->token},
                                    {"value", {{"kind", "end"}, {"message", ok ? "model loaded" : "failed"}}}});
}

void LspServer::show_message(lsp::MessageType type, const std::string& message) {
  log_.debug("showMessage: " + message);
  endpoint_.notify("window/showMessage", {{"type", static_cast<int>(type)}, {"message", message}});
}

void LspServer::log_message(lsp::MessageType type, const std::string& message) {
  endpoint_.notify("window/logMessage", {{"type", static_cast<int>(type)}, {"message", message}});
}

void LspServer::trace(const std::string& message) {
  if (trace_ == "off") return;
  endpoint_.notify("$/logTrace", {{"message", message}});
}

}  // namespace wafer
