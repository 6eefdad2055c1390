// `wafer bench` target: an HTTP completion endpoint, driven keystroke by keystroke like
// the LSP targets — llama.cpp's POST /infill (input_prefix/input_suffix, cache_prompt) or
// an OpenAI-compatible POST /v1/completions with a fill-in-the-middle prompt. Requests run
// concurrently through libcurl's multi interface (connections are reused); a stale request
// is cancelled by dropping its transfer. With streaming, the first server-sent event that
// carries text gives the time to first text. The prompt window: whole lines, as wafer lsp
// (--prefix-lines / --suffix-lines) within its default token budgets, without a syntax tree.
#pragma once

#include <memory>
#include <string>

#include "server/benchtool/bench_replay.h"
#include "server/backends/remote_api.h"
#include "server/backends/remote_prompt.h"

namespace wafer::bench {

using HttpApi = RemoteApi;  // the wire formats are the daemon's (remote_api.h)

struct HttpTargetOptions {
  std::string url;   // base URL (http://127.0.0.1:8080) or the full endpoint URL
  HttpApi api = HttpApi::kLlamaCpp;
  std::string model;         // OpenAI "model" field (omitted when empty)
  std::string prompt_template;  // custom prompt text; empty: Qwen2.5-Coder's format (remote_prompt.h)
  int max_tokens = 64;
  bool stream = true;
  int prefix_lines = 60, suffix_lines = 20;
  double timeout_ms = 60000;  // per request
};

std::unique_ptr<BenchTarget> make_http_target(HttpTargetOptions options);

using wafer::endpoint_url;
// The request body for a prefix and suffix.
nlohmann::json http_request_body(const HttpTargetOptions& o, const std::string& prefix, const std::string& suffix);
// Text and token counts from a response body or one streamed event's JSON.
using HttpChunk = RemoteChunk;
inline HttpChunk parse_http_chunk(const nlohmann::json& j, HttpApi api) { return parse_remote_chunk(j, api); }

}  // namespace wafer::bench
