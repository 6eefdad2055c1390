// The wire formats of the inference servers wafer can put in front of the editor:
// llama.cpp's POST /infill and OpenAI-compatible POST /v1/completions (vLLM, Ollama,
// llama-server's own /v1 API, ...). Pure functions — endpoint URLs, request bodies,
// response chunks, an incremental server-sent-events reader, error bodies — shared by the
// daemon's remote backend (remote_backend.h) and `wafer bench infill` (bench_http.h), so
// both speak to a server exactly alike. No I/O here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/types.h"

namespace wafer {

enum class RemoteApi { kLlamaCpp, kOpenAi };

// The endpoint URL for a base URL: adds /infill or /v1/completions unless the URL already
// names an endpoint.
std::string endpoint_url(const std::string& base, RemoteApi api);

// The URL for messages and logs: any "user:password@" in it replaced by "***@".
std::string redact_url(const std::string& url);

// What one request asks for (the FIM windows come from the context builder).
struct RemoteRequest {
  std::string prefix, suffix;
  std::vector<ContextFile> extra;  // extra context files (llama.cpp's input_extra)
  int max_tokens = 64;
  bool stream = true;
  std::vector<std::string> stop;   // sent as "stop" when not empty
  int n_indent = -1;               // llama.cpp: stop at a new line indented less than this (-1: omit)
  double max_predict_ms = 0;       // llama.cpp t_max_predict_ms (0: omit)
  std::string model;               // OpenAI "model" (omitted when empty)
  std::string prompt;              // OpenAI: the whole FIM prompt text (remote_prompt.h)
};

// llama.cpp /infill: input_prefix, input_suffix, input_extra [{filename, text}],
// n_predict, cache_prompt, temperature 0, stream, and n_indent / t_max_predict_ms / stop
// when set.
nlohmann::json llama_infill_body(const RemoteRequest& r);
// OpenAI /v1/completions: prompt, max_tokens, temperature 0, stream, stop, model.
nlohmann::json openai_completion_body(const RemoteRequest& r);

// Text, token counts and the end of a stream, from a whole response body or from one
// streamed event's JSON. Counts are -1 when the server did not say.
struct RemoteChunk {
  std::string text;
  int tokens_reused = -1, tokens_prefilled = -1, tokens_generated = -1;
  bool last = false;  // llama.cpp "stop": true, or an OpenAI finish_reason
};
RemoteChunk parse_remote_chunk(const nlohmann::json& j, RemoteApi api);

// One server-sent event: its data lines joined by "\n". error: llama-server reports a
// failure in the middle of a stream with "error:" lines instead of "data:" lines.
struct SseEvent {
  std::string data;
  bool error = false;
};

// Server-sent events read incrementally: feed() bytes as they arrive (any split, "\n" or
// "\r\n" line ends) and get each complete event. A "data: [DONE]" event comes back as
// "[DONE]"; comments and other fields are skipped.
class SseReader {
 public:
  std::vector<SseEvent> feed(std::string_view bytes);
  // Bytes of an unfinished event still held (a stream that ends with some is cut short).
  size_t pending() const { return line_.size() + event_.data.size(); }

 private:
  std::string line_;  // the current, unfinished line
  SseEvent event_;    // the current event's data lines so far, joined by "\n"
  bool has_data_ = false;
};

// The message of an error response body ({"error": {"message"}}, {"error": "..."},
// {"message"}, or the text itself, shortened), for the user.
std::string remote_error_message(const std::string& body);

// Whether an HTTP error says the server's model cannot fill in the middle (llama.cpp
// answers /infill with 501 "not_supported_error" for a model without FIM tokens).
bool remote_fim_unsupported(long http_status, const std::string& body);

}  // namespace wafer
