#include "server/daemon/lsp_server.h"

#include <chrono>

#include "engine/base/version.h"
#include "server/backends/remote_backend.h"
#include "server/daemon/scripted_engine.h"
#include "server/daemon/settings.h"

namespace wafer {

using json = nlohmann::json;
using jsonrpc::Reply;

LspServer::LspServer(uv_loop_t* loop, Options options, Hooks hooks, Logger& log)
    : loop_(loop),
      options_(std::move(options)),
      hooks_(std::move(hooks)),
      log_(log),
      endpoint_([this](std::string body) { hooks_.send(std::move(body)); },
                [this](const std::string& m) { log_.warn(m); }),
      scheduler_(std::make_unique<Scheduler>(loop)),
      mapping_faults_seen_(mapped_file_faults()) {
  log_.set_forward([this](LogLevel level, const std::string& m) {
    lsp::MessageType t = level == LogLevel::kError     ? lsp::MessageType::kError
                         : level == LogLevel::kWarning ? lsp::MessageType::kWarning
                                                       : lsp::MessageType::kInfo;
    log_message(t, m);
  });
  endpoint_.set_gate([this](const jsonrpc::Message& m) { return gate(m); });
  register_handlers();
  recent_.set_snapshot_of([this](const std::string& uri) -> std::shared_ptr<const Snapshot> {
    std::optional<Workspace::View> v = workspace_.get(uri);
    return v ? v->snapshot : nullptr;
  });
}

LspServer::~LspServer() {
  close();
  log_.set_forward(nullptr);
  *alive_ = false;
}

void LspServer::close() {
  if (index_worker_) index_worker_->close();
  if (scheduler_) scheduler_->close();
}

void LspServer::register_handlers() {
  endpoint_.on_request("initialize", [this](const json& p, Reply r) { on_initialize(p, std::move(r)); });
  endpoint_.on_notification("initialized", [this](const json&) { on_initialized(); });
  endpoint_.on_request("shutdown", [this](const json&, Reply r) { on_shutdown(std::move(r)); });
  endpoint_.on_notification("exit", [this](const json&) { on_exit(); });
  endpoint_.on_notification("$/setTrace", [this](const json& p) { trace_ = lsp::parse_params<lsp::SetTraceParams>(p).value; });
  endpoint_.on_notification("workspace/didChangeConfiguration", [this](const json& p) { on_did_change_configuration(p); });
  endpoint_.on_notification("textDocument/didOpen", [this](const json& p) { on_did_open(p); });
  endpoint_.on_notification("textDocument/didChange", [this](const json& p) { on_did_change(p); });
  endpoint_.on_notification("textDocument/didClose", [this](const json& p) { on_did_close(p); });
  endpoint_.on_notification("textDocument/didSave", [this](const json& p) {
    index_file_changed(lsp::parse_params<lsp::DidCloseTextDocumentParams>(p).text_document.uri);
  });
  endpoint_.on_notification("workspace/didChangeWatchedFiles", [this](const json& p) { on_did_change_watched_files(p); });
  // Show/accept feedback as Copilot's language server names it (statistics).
  endpoint_.on_notification("textDocument/didShowCompletion", [this](const json& p) { on_completion_feedback(p, false); });
  endpoint_.on_notification("textDocument/didPartiallyAcceptCompletion",
                            [this](const json& p) { on_completion_feedback(p, true); });
  endpoint_.on_request("textDocument/inlineCompletion",
                       [this](const json& p, Reply r) { on_completion(p, std::move(r), /*inline_kind=*/true); });
  endpoint_.on_request("textDocument/completion",
                       [this](const json& p, Reply r) { on_completion(p, std::move(r), /*inline_kind=*/false); });
  endpoint_.on_request("wafer/stats", [this](const json&, Reply r) { on_stats(std::move(r)); });
  endpoint_.on_notification("wafer/warm", [this](const json& p) { on_warm(p); });
  endpoint_.on_notification("wafer/yank", [this](const json& p) { on_yank(p); });
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
  return std::nullopt;
}

void LspServer::on_initialize(const json& params, Reply reply) {
  if (initialize_seen_) {
    reply.error({jsonrpc::kInvalidRequest, "initialize may only be sent once"});
    return;
  }
  auto p = lsp::parse_params<lsp::InitializeParams>(params);
  Options next = options_;
  if (Status st = apply_settings(next, p.initialization_options); !st)
    throw jsonrpc::InvalidParams("initializationOptions." + st.error().message);
  options_ = std::move(next);
  encoding_ = lsp::PositionEncoding::kUtf16;
  for (const std::string& e : p.position_encodings)
    if (e == "utf-8") encoding_ = lsp::PositionEncoding::kUtf8;
  client_progress_ = p.work_done_progress;
  trace_ = p.trace;
  root_uri_ = p.root_uri;
  initialize_seen_ = true;
  phase_ = Phase::kInitialized;
  json caps = {
      {"positionEncoding", lsp::to_string(encoding_)},
      {"textDocumentSync", {{"openClose", true}, {"change", 2 /* incremental */}}},
      {"inlineCompletionProvider", true},
      {"completionProvider", {{"resolveProvider", false}}},
  };
  reply.result({{"capabilities", caps}, {"serverInfo", {{"name", "wafer"}, {"version", version()}}}});
}

void LspServer::on_initialized() {
  load_model();
  if (!root_uri_.empty()) start_index(root_uri_);
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
  bool reload = engine_changed(options_, next);
  options_ = std::move(next);
  if (reload) load_model();
}

void LspServer::on_did_open(const json& params) {
  auto p = lsp::parse_params<lsp::DidOpenTextDocumentParams>(params);
  workspace_.open(p.text_document);
  rhythm_[p.text_document.uri].keystroke(std::chrono::steady_clock::now(), /*opening=*/true);
  stats_.count("documents_opened");
  if (root_uri_.empty() && index_root_.empty()) start_index(p.text_document.uri);
}

void LspServer::on_did_change(const json& params) {
  auto p = lsp::parse_params<lsp::DidChangeTextDocumentParams>(params);
  auto t0 = std::chrono::steady_clock::now();
  if (Status st = workspace_.change(p, encoding_); !st) {
    stats_.count("change_errors");
    log_.error(st.error().message + " (" + p.text_document.uri +
               "); completions for it are off until the client sends the whole text again");
    return;
  }
  stats_.count("changes");
  if (stats_.counter("changes") % kReleaseHeapEvery == 0) release_free_heap();
  // The document moved on: what was being decoded ahead of the old cursor is moot, and the
  // engine must be free for the request that follows the keystroke.
  scheduler_->supersede(ahead_key(p.text_document.uri));
  rhythm_[p.text_document.uri].keystroke(t0);
  note_edit(p);
  stats_.record("did_change_ms", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}

// The line of the first ranged change (a whole-text change says nothing about a place).
void LspServer::note_edit(const lsp::DidChangeTextDocumentParams& p) {
  if (options_.recent_tokens <= 0) return;
  for (const auto& c : p.content_changes) {
    if (!c.range) continue;
    if (std::optional<Workspace::View> v = workspace_.get(p.text_document.uri))
      recent_.edited(*v->snapshot, c.range->start.line);
    return;
  }
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
  stats_.count("yanks");
  std::string uri;
  if (auto it = params.find("textDocument"); it != params.end())
    uri = lsp::parse_params<lsp::TextDocumentIdentifier>(object(*it, "textDocument")).uri;
  auto range_it = params.find("range");
  auto text_it = params.find("text");
  if (range_it != params.end() && uri.empty())
    throw jsonrpc::InvalidParams("textDocument: a range needs the document it is in");
  if (range_it == params.end() && (text_it == params.end() || !text_it->is_string()))
    throw jsonrpc::InvalidParams("expected a textDocument and a range, or a text (a string)");
  if (options_.recent_tokens <= 0) {
    log_.debug("wafer/yank ignored: recentTokens is 0");
    return;
  }
  RecentChunks::Yank outcome;
  if (range_it != params.end()) {
    lsp::Range r = lsp::parse_params<lsp::Range>(object(*range_it, "range"));
    std::optional<Workspace::View> v = workspace_.get(uri);
    if (!v) {
      log_.warn("wafer/yank ignored: the document is not open: " + uri);
      return;
    }
    Result<size_t> begin = offset_at(*v->snapshot, r.start, encoding_);
    Result<size_t> end = offset_at(*v->snapshot, r.end, encoding_);
    if (!begin || !end || *end < *begin) {
      log_.warn("wafer/yank ignored: the range is not in " + uri + ": " +
                (!begin ? begin.error().message : !end ? end.error().message : std::string("it ends before it starts")));
      return;
    }
    // Whole lines; an end at the start of a line closes the line before it.
    size_t last = static_cast<size_t>(r.end.line);
    if (r.end.character == 0 && r.end.line > r.start.line) --last;
    outcome = recent_.yanked_lines(*v->snapshot, static_cast<size_t>(r.start.line), last);
  } else {
    outcome = recent_.yanked_text(uri, text_it->get_ref<const std::string&>());
  }
  // What a user does every day (yank a blank line, a long block, the same lines again) is
  // logged at debug level; a range the client got wrong is a warning.
  switch (outcome) {
    case RecentChunks::Yank::kAdded: stats_.count("yanks_added"); break;
    case RecentChunks::Yank::kAlreadyThere: log_.debug("wafer/yank: the text is in the ring already"); break;
    case RecentChunks::Yank::kBlank: log_.debug("wafer/yank ignored: whitespace only"); break;
    case RecentChunks::Yank::kTooLong:
      log_.debug("wafer/yank ignored: over " + std::to_string(RecentChunks::kMaxBytes) + " bytes in its first " +
                std::to_string(RecentChunks::kMaxLines) + " lines");
      break;
    case RecentChunks::Yank::kOutside: log_.warn("wafer/yank ignored: the range is not in " + uri); break;
  }
}

void LspServer::on_did_close(const json& params) {
  auto p = lsp::parse_params<lsp::DidCloseTextDocumentParams>(params);
  rhythm_.erase(p.text_document.uri);
  typing_.forget(p.text_document.uri);
  scheduler_->supersede(ahead_key(p.text_document.uri));
  definitions_.erase(p.text_document.uri);
  extra_choice_.erase(p.text_document.uri);
  if (!workspace_.close(p.text_document.uri)) log_.warn("didClose for a document that is not open: " + p.text_document.uri);
  index_file_changed(p.text_document.uri);  // the index has its text from disk again
}

void LspServer::on_stats(Reply reply) {
  json s = stats_.to_json();
  s["documents"] = workspace_.size();
  s["engine_busy"] = scheduler_->engine_busy();
  if (const ModelInfo* m = scheduler_->model_info()) {
    s["model"] = {{"name", m->name}, {"architecture", m->architecture}};
    if (served_model_) {  // the local engine's file, and why it was chosen (setting, cache, bundled)
      s["model"]["path"] = served_model_->path;
      s["model"]["source"] = to_string(served_model_->source);
    }
  } else {
    s["model"] = nullptr;
  }
  s["backend"] = options_.backend;
  // The local engine's kernels and what they chose by timing themselves (engine/kernels).
  const ComputeKernels k = compute_kernels(options_.amx, options_.amx_bf16);
  s["kernels"] = {{"name", k.name}, {"tuning", k.tuning}};
  // What the daemon holds: its resident memory, and the size of everything kept across
  // requests. Per-document state (open documents and what is kept for each) goes with
  // didClose; the statistics are fixed histograms.
  const HeapUse heap = heap_use();
  s["memory"] = {{"rss_kib", resident_kib()},
                 {"heap_in_use_kib", heap.in_use_kib},
                 {"heap_free_kib", heap.free_kib},
                 {"documents", workspace_.size()},
                 {"typing_cache_entries", typing_.size()},
                 {"definition_lists", definitions_.size()},
                 {"extra_context_choices", extra_choice_.size()},
                 {"edit_times", rhythm_.size()},
                 {"waiting_for_model", waiting_for_model_.size()},
                 {"open_requests", endpoint_.pending_requests()},
                 {"stats_stages", stats_.stages()},
                 {"stats_bytes", stats_.bytes()}};
  s["workspace_index"] = index_stats();
  reply.result(std::move(s));
}

void LspServer::use_remote_backend() {
  Result<RemoteOptions> ro = remote_options(options_);
  if (!ro) {
    show_message(lsp::MessageType::kError, "wafer: cannot use the remote backend: " + ro.error().message);
    return;
  }
  // The backend reports transitions only (first failure, another failure, recovery), so the
  // editor hears about a server that is down once, not per keystroke.
  auto backend = std::make_shared<RemoteBackend>(
      loop_, std::move(*ro), [this, alive = alive_](bool ok, const std::string& message) {
        if (!*alive) return;
        if (ok) {
          stats_.count("backend_recovered");
          log_message(lsp::MessageType::kInfo, message);
          return;
        }
        stats_.count("backend_problems");
        show_message(lsp::MessageType::kError,
                     "wafer: " + options_.backend + ": " + message + ". Completions are off until it answers; retrying with backoff.");
      });
  log_.info("completions from " + backend->name() + " at " + backend->endpoint());
  scheduler_->set_backend(std::move(backend));
}

void LspServer::resume_waiting_for_model() {
  std::vector<WaitingForModel> waiting = std::move(waiting_for_model_);
  waiting_for_model_.clear();
  for (WaitingForModel& w : waiting) {
    try {
      on_completion(w.params, std::move(w.reply), w.inline_kind);
    } catch (const jsonrpc::InvalidParams& e) {  // e.g. the document was closed meanwhile
      w.reply.error({jsonrpc::kInvalidParams, e.what()});
    }
  }
}

void LspServer::load_model() {
  int generation = ++load_generation_;
  scheduler_->set_engine(nullptr);
  scheduler_->set_backend(nullptr);
  model_loading_ = false;
  if (options_.backend != "local") return use_remote_backend();
  served_model_.reset();
  std::string what = !options_.fake_engine.empty() ? "fake engine " + options_.fake_engine
                     : options_.model.empty()      ? std::string("the default model")
                                                   : options_.model;
  // Work-done progress, if the client supports it: create the token, begin once the client
  // acknowledged it, end when loading finishes.
  struct Progress {
    json token;
    bool begun = false, finished = false;
  };
  auto progress = std::make_shared<Progress>();
  if (client_progress_) {
    progress->token = "wafer/load-model/" + std::to_string(++progress_tokens_);
    endpoint_.call("window/workDoneProgress/create", {{"token", progress->token}},
                   [this, progress, what, alive = alive_](const json&, const jsonrpc::Error* err) {
                     if (!*alive || err || progress->finished) return;
                     progress->begun = true;
                     endpoint_.notify("$/progress", {{"token", progress->token},
                                                     {"value", {{"kind", "begin"}, {"title", "wafer: loading model"}, {"message", what}}}});
                   });
  }
  using Loaded = std::optional<Result<std::shared_ptr<Engine>>>;
  auto loaded = std::make_shared<Loaded>();
  auto choice = std::make_shared<std::optional<ModelChoice>>();
  EngineOptions eo = engine_options(options_);
  std::string fake = options_.fake_engine;
  auto t0 = std::chrono::steady_clock::now();
  model_loading_ = true;
  scheduler_->run_on_engine_thread(
      [loaded, choice, eo, fake] {
        if (!fake.empty()) {
          loaded->emplace(make_scripted_engine(fake));
          return;
        }
        // The setting (a path, or a catalogue name meaning the cached download), else the
        // most capable pulled model, else the bundled one (server/pull/model_choice.h).
        Result<ModelChoice> chosen = choose_model(eo.model_path, default_model_search());
        if (!chosen) {
          loaded->emplace(chosen.error());
          return;
        }
        *choice = *chosen;
        EngineOptions resolved = eo;
        resolved.model_path = chosen->path;
        Result<std::unique_ptr<Engine>> r = load_engine(resolved);
        if (r) loaded->emplace(std::shared_ptr<Engine>(std::move(r).value()));
        else loaded->emplace(r.error());
      },
      [this, loaded, choice, progress, generation, what, t0, alive = alive_] {
        if (!*alive || generation != load_generation_) return;
        progress->finished = true;
        model_loading_ = false;
        std::string error;
        if (!loaded->has_value() || !**loaded) {
          error = loaded->has_value() ? (*loaded)->error().message : "unknown error";
        } else if (!(**loaded).value()->info().has_fim) {
          error = "model '" + (**loaded).value()->info().name +
                  "' has no fill-in-the-middle tokens; inline completion needs a FIM code model "
                  "(e.g. Qwen2.5-Coder)";
        }
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (progress->begun)
          endpoint_.notify("$/progress", {{"token", progress->token},
                                          {"value", {{"kind", "end"}, {"message", error.empty() ? "model loaded" : "failed"}}}});
        if (!error.empty()) {
          stats_.count("model_load_errors");
          if (error != last_model_error_) show_message(lsp::MessageType::kError, "wafer: cannot use the model: " + error);
          last_model_error_ = error;
          resume_waiting_for_model();
          return;
        }
        last_model_error_.clear();
        scheduler_->set_engine((**loaded).value());
        resume_waiting_for_model();
        stats_.record("model_load_ms", ms);
        log_.info("model loaded: " + (*choice ? (*choice)->path : what) + " (" + std::to_string(static_cast<int>(ms)) +
                  " ms)");
        served_model_ = *choice;
        // Which model serves, once per model: users who set none learn what they got and,
        // with the bundled one, how to get a better one.
        if (served_model_ && served_model_->path != announced_model_) {
          announced_model_ = served_model_->path;
          const std::string line = "completions from " + describe_choice(*served_model_, (**loaded).value()->info().name);
          log_.info(line);
          show_message(lsp::MessageType::kInfo, "wafer: " + line);
        }
        if (const std::string& k = (**loaded).value()->info().kernels; !k.empty()) log_.info(k);
        if (const std::string& kv = (**loaded).value()->info().kv_cache; !kv.empty()) log_.info(kv);
        // --mlock: where the weights are; a refusal does not stop completions, but the user asked.
        if (const std::string& lock = (**loaded).value()->info().memory_lock; !lock.empty()) {
          log_.info(lock);
          if (lock.starts_with("cannot")) show_message(lsp::MessageType::kWarning, "wafer: " + lock);
        }
      });
}

bool LspServer::model_file_lost() {
  uint64_t faults = mapped_file_faults();
  if (faults == mapping_faults_seen_) return false;
  mapping_faults_seen_ = faults;
  stats_.count("model_file_lost");
  log_.error("the model file changed on disk while in use (truncated or replaced): the answer computed from it "
             "is dropped and the model is loaded again");
  load_model();
  return true;
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
