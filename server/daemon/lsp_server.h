// The LSP protocol layer of the daemon: lifecycle (initialize / initialized / shutdown /
// exit), capability negotiation (position encoding utf-8 when offered, else utf-16;
// incremental sync; inline completion and completion providers), settings, model loading
// with work-done progress, documents, completion requests through the scheduler, and
// `wafer/stats`. It speaks JSON bodies; framing and I/O are the transport's job, so tests
// drive it with strings.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include <uv.h>

#include "server/daemon/completion_request.h"
#include "server/index/index_worker.h"
#include "server/lsp/jsonrpc.h"
#include "server/daemon/log.h"
#include "server/config/options.h"
#include "server/lsp/protocol.h"
#include "server/daemon/scheduler.h"
#include "server/prompt/context.h"
#include "server/prompt/extra_context.h"
#include "server/prompt/recent_chunks.h"
#include "server/daemon/stats.h"
#include "server/daemon/typing_rhythm.h"
#include "server/prompt/typing_cache.h"
#include "server/prompt/workspace.h"
#include "server/pull/model_choice.h"

namespace wafer {

struct CompletionState;

class LspServer {
 public:
  struct Hooks {
    std::function<void(std::string body)> send;  // one JSON message to the client
    std::function<void(int exit_code)> exit;     // the daemon should stop with this code
  };

  LspServer(uv_loop_t* loop, Options options, Hooks hooks, Logger& log);
  ~LspServer();
  LspServer(const LspServer&) = delete;
  LspServer& operator=(const LspServer&) = delete;

  // Input from the transport.
  void receive(std::string_view body) { endpoint_.receive(body); }
  void framing_error(const std::string& message) { endpoint_.framing_error(message); }
  // End of input: exits with 0 after shutdown, else 1 (as for `exit` without shutdown).
  void input_closed(bool mid_message, const std::string& detail);

  // Stops the scheduler (cancelling jobs) and closes its handles. Idempotent.
  void close();

  // Test access.
  Scheduler& scheduler() { return *scheduler_; }
  const Stats& stats() const { return stats_; }
  const Options& options() const { return options_; }
  lsp::PositionEncoding encoding() const { return encoding_; }

 private:
  enum class Phase { kUninitialized, kInitialized, kShutdown };

  void register_handlers();
  std::optional<jsonrpc::Error> gate(const jsonrpc::Message& m);

  void on_initialize(const nlohmann::json& params, jsonrpc::Reply reply);
  void on_initialized();
  void on_shutdown(jsonrpc::Reply reply);
  void on_exit();
  void on_did_change_configuration(const nlohmann::json& params);
  void on_did_open(const nlohmann::json& params);
  void on_did_change(const nlohmann::json& params);
  void note_edit(const lsp::DidChangeTextDocumentParams& p);  // for recent_
  void on_yank(const nlohmann::json& params);                 // wafer/yank, for recent_
  void on_did_close(const nlohmann::json& params);
  void on_stats(jsonrpc::Reply reply);

  // lsp_completion.cpp
  // Takes the reply only once the request is valid: when it throws InvalidParams, `reply` is
  // still the caller's to answer (a request resumed after the model load has no endpoint
  // around it to do that).
  void on_completion(const nlohmann::json& params, jsonrpc::Reply&& reply, bool inline_kind);
  // The completion at `offset` of the document as completion_request.h builds it for every
  // caller, with this server's workspace (other open documents) and model; counts requests
  // that got extra context.
  CompletionSite completion_site(const std::string& uri, const Workspace::View& view, size_t offset);
  PreparedCompletion prepare(const std::string& uri, const Workspace::View& view, size_t offset);
  void on_greedy_done(const std::shared_ptr<CompletionState>& st, Scheduler::JobResult r);
  // lsp_alternatives.cpp
  void run_alternative(const std::shared_ptr<CompletionState>& st, int index);
  void finish_alternatives(const std::shared_ptr<CompletionState>& st);
  // lsp_ahead.cpp
  static std::string ahead_key(const std::string& uri);  // the scheduler key of a document's ahead work
  void start_ahead(const std::shared_ptr<CompletionState>& st);
  void on_completion_feedback(const nlohmann::json& params, bool partial_accept);
  // lsp_warm.cpp
  void on_warm(const nlohmann::json& params);
  // Prefills a debounced completion's prompt now, as background work (lsp_warm.cpp).
  void prefill_early(const std::string& uri, const CompletionRequest& request, int64_t version);
  struct IdlePrefillStats {  // the wafer/stats names one kind of idle prefill counts under
    const char* started;
    const char* outcome_prefix;
    const char* ms;
    const char* tokens;
  };
  // Adds a run's prefilled tokens to the per-part counts (prefilled_part_extra, _prefix,
  // _suffix, _frame): all the engine's prefill work, requests and background alike.
  void count_prefilled_parts(const Timings& t);
  void submit_idle_prefill(const std::string& uri, int64_t version, CompletionRequest request,
                           const IdlePrefillStats& names);
  const std::vector<Definition>& definitions(const std::string& uri, const Workspace::View& view);
  // lsp_index.cpp: the workspace index.
  // Starts indexing the client's root, or else the repository holding `uri` (the folder
  // with .git above it), unless the setting is off or it already indexes that root.
  void start_index(const std::string& uri);
  // A file under the index's root changed on disk (saved, closed, created, deleted).
  void index_file_changed(const std::string& uri);
  void on_did_change_watched_files(const nlohmann::json& params);
  // Sources from the index for the names (files not open here, languages related to
  // `language`).
  std::vector<ExtraSource> index_sources(const std::vector<std::string>& names, std::string_view language);
  nlohmann::json index_stats() const;

  void load_model();
  void use_remote_backend();
  // True (once per event) when the mapped model file was truncated under us
  // (engine/runtime/mapping_guard.h): logs it and reloads the model from disk.
  bool model_file_lost();
  void show_message(lsp::MessageType type, const std::string& message);
  void log_message(lsp::MessageType type, const std::string& message);
  void trace(const std::string& message);

  uv_loop_t* loop_;
  Options options_;
  Hooks hooks_;
  Logger& log_;
  jsonrpc::Endpoint endpoint_;
  Workspace workspace_;
  std::unique_ptr<Scheduler> scheduler_;
  Stats stats_;

  Phase phase_ = Phase::kUninitialized;
  bool initialize_seen_ = false;
  bool exited_ = false;
  lsp::PositionEncoding encoding_ = lsp::PositionEncoding::kUtf16;
  bool client_progress_ = false;
  std::string trace_ = "off";
  std::string root_uri_;  // the workspace root from initialize: names files in prompts
  int load_generation_ = 0;      // ignores the result of a load superseded by a newer one
  std::string last_model_error_; // shown once per distinct failure
  bool model_loading_ = false;   // requests queue behind the load instead of being refused
  // Completion requests that came while the model loaded, the latest per document: built
  // once it is loaded, since the prompt's budgets depend on the model (a prompt built
  // without them differs from every later one and the cache could not reuse it).
  struct WaitingForModel {
    std::string uri;
    nlohmann::json params;
    jsonrpc::Reply reply;
    bool inline_kind = true;
  };
  std::vector<WaitingForModel> waiting_for_model_;
  void resume_waiting_for_model();
  int progress_tokens_ = 0;
  // The model that serves (local engine): what the setting or the default order chose.
  std::optional<ModelChoice> served_model_;
  std::string announced_model_;  // the path last announced to the user (once per model)
  uint64_t mapping_faults_seen_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  // The workspace index: its thread, the root asked for, the latest snapshot (swapped in
  // by the thread's callback), how often it changed and how long the last build took.
  std::unique_ptr<IndexWorker> index_worker_;
  std::string index_root_;
  std::shared_ptr<const WorkspaceIndex> index_;
  int64_t index_generation_ = 0;
  double index_build_ms_ = 0;
  // The typing rhythm per document (typing_rhythm.h): the debounce counts from the last
  // keystroke, so a client that waited before asking does not wait twice, and an automatic
  // request's first-token budget follows the gaps between keystrokes. Like every
  // per-document map below, it holds at most one entry per open document: didClose erases it.
  std::map<std::string, TypingRhythm, std::less<>> rhythm_;
  // The places recently edited (prompt/recent_chunks.h): at most 8 chunks over all documents.
  RecentChunks recent_;
  // The last suggestion per document, for typing-through (lsp_completion.cpp).
  TypingCache typing_;
  // Definitions per document and the version they were found in (extra context); one
  // list per open document.
  struct Definitions {
    int64_t version = -1;
    std::vector<Definition> list;
  };
  std::map<std::string, Definitions, std::less<>> definitions_;
  // The extra context last chosen per document, and what it was chosen for: it is kept
  // while the window starts at the same place (and the other documents are unchanged), so
  // the prompt's start stays the same and the engine's cache holds it (lsp_completion.cpp).
  struct ExtraChoice {
    size_t window_begin = 0;
    int budget_tokens = 0;
    std::vector<std::pair<std::string, int64_t>> others;  // the other documents used, and their versions
    std::vector<ContextFile> chunks;
  };
  std::map<std::string, ExtraChoice, std::less<>> extra_choice_;
};

}  // namespace wafer
