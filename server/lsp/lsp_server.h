// The LSP face of the completion service: lifecycle (initialize / initialized / shutdown /
// exit), capability negotiation (position encoding utf-8 when offered, else utf-16;
// incremental sync; inline completion and completion providers), settings, work-done
// progress while the model loads, and `wafer/stats`. It reads JSON params into the
// service's plain types, calls CompletionService (server/service/completion_service.h),
// and maps its answers and events back to LSP results and notifications. It speaks JSON
// bodies; framing and I/O are the transport's job, so tests drive it with strings.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <uv.h>

#include "server/config/options.h"
#include "server/lsp/jsonrpc.h"
#include "server/lsp/protocol.h"
#include "server/service/completion_service.h"
#include "server/service/log.h"

namespace wafer {

class LspServer final : private ServiceEvents {
 public:
  struct Hooks {
    std::function<void(std::string body)> send;  // one JSON message to the client
    std::function<void(int exit_code)> exit;     // the daemon should stop with this code
  };

  LspServer(uv_loop_t* loop, Options options, Hooks hooks, Logger& log);
  ~LspServer() override;
  LspServer(const LspServer&) = delete;
  LspServer& operator=(const LspServer&) = delete;

  // Input from the transport.
  void receive(std::string_view body) { endpoint_.receive(body); }
  void framing_error(const std::string& message) { endpoint_.framing_error(message); }
  // End of input: exits with 0 after shutdown, else 1 (as for `exit` without shutdown).
  void input_closed(bool mid_message, const std::string& detail);

  // Stops the service (cancelling jobs) and closes its handles. Idempotent.
  void close();

  // Test access.
  CompletionService& service() { return service_; }
  Scheduler& scheduler() { return service_.scheduler(); }
  const Stats& stats() const { return service_.stats(); }
  const Options& options() const { return options_; }
  lsp::PositionEncoding encoding() const { return service_.position_encoding(); }

 private:
  enum class Phase { kUninitialized, kInitialized, kShutdown };

  void register_handlers();
  std::optional<jsonrpc::Error> gate(const jsonrpc::Message& m);

  void on_initialize(const nlohmann::json& params, jsonrpc::Reply reply);
  void on_shutdown(jsonrpc::Reply reply);
  void on_exit();
  void on_did_change_configuration(const nlohmann::json& params);
  // New settings: kept, and handed to the service (reloading the model if an engine or
  // backend setting changed).
  void configure(Options next);
  void on_did_change(const nlohmann::json& params);
  void on_did_change_watched_files(const nlohmann::json& params);
  void on_did_change_workspace_folders(const nlohmann::json& params);
  void on_yank(const nlohmann::json& params);  // wafer/yank
  void on_completion_feedback(const nlohmann::json& params, bool partial_accept);
  void on_completion(const nlohmann::json& params, jsonrpc::Reply&& reply, bool inline_kind);
  void on_stats(jsonrpc::Reply reply);

  // ServiceEvents
  void show(Level level, const std::string& message) override;
  void model_loading(const std::string& what) override;
  void model_loaded(bool ok) override;
  void trace(const std::string& line) override;

  void show_message(lsp::MessageType type, const std::string& message);
  void log_message(lsp::MessageType type, const std::string& message);

  Hooks hooks_;
  Logger& log_;
  jsonrpc::Endpoint endpoint_;
  Options options_;  // the settings; the service gets service_options() of them
  CompletionService service_;

  Phase phase_ = Phase::kUninitialized;
  bool initialize_seen_ = false;
  bool exited_ = false;
  bool client_progress_ = false;
  std::string trace_ = "off";
  // Work-done progress of the model load under way (the client must acknowledge the
  // token before it hears `begin`).
  struct Progress {
    nlohmann::json token;
    bool begun = false, finished = false;
  };
  std::shared_ptr<Progress> progress_;
  int progress_tokens_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace wafer
