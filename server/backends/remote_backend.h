// Completions from a remote inference server: llama.cpp's `llama-server` (POST /infill)
// or any OpenAI-compatible server (POST /v1/completions with a FIM prompt), over HTTP(S)
// with libcurl on the daemon's loop (curl_loop.h). Responses are streamed (server-sent
// events) and handed on as they arrive; the request's stop strings and should_stop rule
// are applied to the text so far, and the transfer is dropped as soon as one fires (the
// server stops generating when its connection closes). cancel() drops it at once.
//
// Failures (cannot connect, timeout, HTTP errors, a broken stream, a model that cannot
// fill in the middle) end the request with an error and start an exponential backoff:
// until it expires, requests fail at once without touching the network, so a server that
// is down costs nothing per keystroke and requests never pile up. on_health reports the
// transitions (first failure, a different failure, recovery) — not every request — so the
// editor hears about a problem once. The API key is sent as "Authorization: Bearer" and
// appears in no message.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <uv.h>

#include "server/backends/backend.h"
#include "server/backends/curl_loop.h"
#include "server/backends/remote_api.h"
#include "server/backends/remote_prompt.h"

namespace wafer {

struct RemoteOptions {
  RemoteApi api = RemoteApi::kLlamaCpp;
  std::string url;           // base URL (http://host:8080) or the endpoint's full URL
  std::string api_key;       // empty: no Authorization header
  std::string model;         // OpenAI "model" field; also the name shown (default: the URL)
  std::string fim_format = "auto";  // OpenAI prompt: the family format (auto: Qwen2.5-Coder's)...
  std::string prompt_template;  // ...or this custom text template (remote_prompt.h)
  double timeout_ms = 10000;          // a whole request, first byte to last
  double connect_timeout_ms = 3000;
  double max_predict_ms = 1000;       // llama.cpp t_max_predict_ms unless the request sets max_decode_ms
  double backoff_min_ms = 500;        // after the first failure; doubled per failure
  double backoff_max_ms = 30000;
};

class RemoteBackend : public Backend {
 public:
  // ok false: a problem (message says what, without secrets); ok true: working again.
  using HealthCallback = std::function<void(bool ok, const std::string& message)>;

  RemoteBackend(uv_loop_t* loop, RemoteOptions options, HealthCallback on_health);
  ~RemoteBackend() override;

  const std::string& name() const override { return name_; }
  const ModelInfo& info() const override { return info_; }
  void start(uint64_t id, const CompletionRequest& request, CompletionCallback on_event) override;
  void cancel(uint64_t id) override;
  void close() override;

  // For tests and statistics.
  int consecutive_failures() const { return failures_; }
  double backoff_left_ms() const;
  size_t in_flight() const { return transfers_.size(); }
  const std::string& endpoint() const { return shown_url_; }  // without any user:password

 private:
  using Clock = std::chrono::steady_clock;
  struct Transfer;

  static size_t on_data(char* data, size_t size, size_t n, void* user);
  bool take_events(Transfer& t, std::string_view bytes);  // false: stop the transfer
  bool add_text(Transfer& t, const std::string& delta);   // false: a stop rule fired
  void done(uint64_t id, CURLcode result);
  void finish(Transfer& t, CompletionEvent e);
  void failed(Transfer& t, const std::string& message, bool backoff);
  void succeeded();
  std::string fim_markers_in(const std::string& text) const;
  std::vector<std::string> markers_;  // the OpenAI prompt format's marker strings

  RemoteOptions opt_;
  std::string url_, shown_url_, name_;
  ModelInfo info_;
  HealthCallback on_health_;
  CurlLoop curl_;
  std::map<uint64_t, std::unique_ptr<Transfer>> transfers_;
  int failures_ = 0;
  Clock::time_point retry_at_{};
  std::string problem_;  // the last problem reported (empty: healthy)
  bool closed_ = false;
};

// The settings a remote backend is made from, as the user wrote them (filled from the
// settings in server/service/service_options.cpp; the names in errors are the settings').
struct RemoteSettings {
  std::string backend;          // backend: llama-server or openai (local has no remote)
  std::string url;              // backendUrl
  std::string model;            // backendModel
  std::string api_key_env;      // apiKeyEnv
  std::string api_key_file;     // apiKeyFile
  std::string fim_format;       // fimFormat
  std::string prompt_template;  // promptTemplate
  int timeout_ms = 0;           // backendTimeoutMs
};

// llama-server or openai from the settings; the API key read from the variable or file
// they name. Errors name the setting.
Result<RemoteOptions> remote_options(const RemoteSettings& o);

}  // namespace wafer
