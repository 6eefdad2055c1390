#include "server/backends/remote_backend.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "engine/base/path_utf8.h"
#include "engine/base/version.h"

namespace wafer {
namespace {

using json = nlohmann::json;

template <typename D>
double ms(D d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// The cursor line's indentation in characters (llama.cpp's n_indent): a new line of the
// completion indented less than this ends it.
int indent_of_last_line(const std::string& prefix) {
  size_t start = prefix.rfind('\n');
  start = start == std::string::npos ? 0 : start + 1;
  size_t end = prefix.find_first_not_of(" \t", start);
  return static_cast<int>((end == std::string::npos ? prefix.size() : end) - start);
}

constexpr size_t kMaxErrorBody = 64 * 1024;

}  // namespace

struct RemoteBackend::Transfer {
  uint64_t id = 0;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  std::string body;
  CompletionRequest request;
  CompletionCallback on_event;
  RemoteBackend* self = nullptr;
  SseReader sse;
  std::string raw;        // the body as received, capped (a plain JSON answer, an error page)
  std::string text;       // the completion so far
  bool saw_event = false;
  bool stopped = false;   // a stop rule fired: the transfer was ended on purpose
  StopReason stop = StopReason::kEndOfText;
  std::string fim_problem;  // the answer shows the model does not know the FIM template
  std::string stream_error; // the server reported an error inside the stream
  Timings timings;
  Clock::time_point started;
};

RemoteBackend::RemoteBackend(uv_loop_t* loop, RemoteOptions options, HealthCallback on_health)
    : opt_(std::move(options)),
      url_(endpoint_url(opt_.url, opt_.api)),
      shown_url_(redact_url(url_)),
      name_(opt_.api == RemoteApi::kLlamaCpp ? "llama-server" : "openai"),
      on_health_(std::move(on_health)),
      curl_(loop) {
  info_.name = opt_.model.empty() ? shown_url_ : opt_.model;
  info_.architecture = name_;
  info_.has_fim = true;  // known only from answers (an error, or markers in the text)
  if (opt_.api == RemoteApi::kOpenAi) {
    markers_ = fim_prompt_markers(opt_.prompt_template, opt_.fim_format);
    info_.fim_format = opt_.prompt_template.empty() ? opt_.fim_format : "custom";
  }
}

RemoteBackend::~RemoteBackend() { close(); }

void RemoteBackend::close() {
  if (closed_) return;
  closed_ = true;
  for (auto& [id, t] : transfers_) {
    curl_.remove(t->easy);
    curl_easy_cleanup(t->easy);
    curl_slist_free_all(t->headers);
  }
  transfers_.clear();
  curl_.close();
}

double RemoteBackend::backoff_left_ms() const { return std::max(0.0, ms(retry_at_ - Clock::now())); }

void RemoteBackend::start(uint64_t id, const CompletionRequest& request, CompletionCallback on_event) {
  CompletionEvent err;
  err.kind = CompletionEvent::Kind::kError;
  err.stop = StopReason::kError;
  if (closed_) {
    err.error = "the remote backend is closed";
    return on_event(err);
  }
  if (double left = backoff_left_ms(); left > 0) {
    // Backing off: no request goes out; the problem was reported when it began.
    err.error = problem_ + " (next try in " + std::to_string(static_cast<int>(std::ceil(left))) + " ms)";
    return on_event(err);
  }
  auto t = std::make_unique<Transfer>();
  t->id = id;
  t->self = this;
  t->request = request;
  t->on_event = std::move(on_event);
  t->started = Clock::now();

  RemoteRequest r;
  r.prefix = request.prefix;
  r.suffix = request.suffix;
  r.extra = request.extra;
  r.max_tokens = request.max_tokens;
  r.stop = request.stop;
  r.model = opt_.model;
  if (opt_.api == RemoteApi::kLlamaCpp) {
    r.n_indent = indent_of_last_line(request.prefix);
    r.max_predict_ms = request.max_decode_ms > 0 ? request.max_decode_ms : opt_.max_predict_ms;
    t->body = llama_infill_body(r).dump(-1, ' ', false, json::error_handler_t::replace);
  } else {
    r.prompt = remote_fim_prompt(opt_.prompt_template, opt_.fim_format, request);
    t->body = openai_completion_body(r).dump(-1, ' ', false, json::error_handler_t::replace);
  }

  t->easy = curl_easy_init();
  if (!t->easy) {
    err.error = "libcurl: cannot create a transfer";
    return t->on_event(err);
  }
  t->headers = curl_slist_append(t->headers, "Content-Type: application/json");
  t->headers = curl_slist_append(t->headers, "Expect:");  // no 100-continue round trip before the body
  t->headers = curl_slist_append(t->headers, "Accept: text/event-stream, application/json");
  if (!opt_.api_key.empty()) t->headers = curl_slist_append(t->headers, ("Authorization: Bearer " + opt_.api_key).c_str());
  static const std::string agent = "wafer/" + std::string(version());
  CURL* e = t->easy;
  curl_easy_setopt(e, CURLOPT_URL, url_.c_str());
  curl_easy_setopt(e, CURLOPT_USERAGENT, agent.c_str());
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
  curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->body.c_str());
  curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, static_cast<long>(t->body.size()));
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &RemoteBackend::on_data);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(opt_.timeout_ms));
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(opt_.connect_timeout_ms));
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  // An answer that is not 2xx is read whole (for its message), not as a stream.
  curl_easy_setopt(e, CURLOPT_FAILONERROR, 0L);
  Transfer& ref = *t;
  transfers_[id] = std::move(t);
  if (!curl_.add(e, [this, id](CURLcode rc) { done(id, rc); })) failed(ref, "libcurl refused the transfer", false);
}

size_t RemoteBackend::on_data(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  long status = 0;
  curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
  std::string_view bytes(data, size * n);
  if (t->raw.size() < kMaxErrorBody) t->raw.append(bytes.substr(0, kMaxErrorBody - t->raw.size()));
  if (status >= 300) return bytes.size();  // an error page: kept for its message
  if (!t->self->take_events(*t, bytes)) return 0;  // libcurl ends the transfer (CURLE_WRITE_ERROR)
  return bytes.size();
}

bool RemoteBackend::take_events(Transfer& t, std::string_view bytes) {
  for (const SseEvent& event : t.sse.feed(bytes)) {
    t.saw_event = true;
    if (event.data == "[DONE]") continue;
    json j = json::parse(event.data, nullptr, false);
    // A failure reported inside the stream: llama-server's "error:" event, or an OpenAI-style
    // {"error": ...} object.
    if (event.error || (j.is_object() && j.contains("error") && !j.contains("choices"))) {
      t.stream_error = remote_error_message(j.is_object() && j.contains("error") ? j.dump() : event.data);
      return false;
    }
    if (j.is_discarded()) continue;
    RemoteChunk c = parse_remote_chunk(j, opt_.api);
    if (c.tokens_reused >= 0) t.timings.tokens_reused = c.tokens_reused;
    if (c.tokens_prefilled >= 0) t.timings.tokens_prefilled = c.tokens_prefilled;
    if (c.tokens_generated >= 0) t.timings.tokens_generated = c.tokens_generated;
    if (!c.text.empty() && !add_text(t, c.text)) return false;
  }
  return true;
}

bool RemoteBackend::add_text(Transfer& t, const std::string& delta) {
  if (t.timings.first_token_ms <= 0) t.timings.first_token_ms = ms(Clock::now() - t.started);
  const size_t before = t.text.size();
  t.text += delta;
  if (opt_.api == RemoteApi::kOpenAi) {
    // A model that does not know the template's special tokens reads them as text and
    // tends to write them back.
    if (std::string m = fim_markers_in(t.text); !m.empty()) {
      t.fim_problem = m;
      t.text.resize(before);
      return false;
    }
  }
  // Stop strings: cut before the earliest one (it may straddle two deltas).
  size_t cut = std::string::npos;
  for (const std::string& s : t.request.stop)
    if (!s.empty())
      if (size_t at = t.text.find(s, before >= s.size() ? before - s.size() + 1 : 0); at != std::string::npos)
        cut = std::min(cut, at);
  if (cut != std::string::npos) {
    t.text.resize(cut);
    t.stopped = true;
    t.stop = StopReason::kStopString;
  }
  if (t.text.size() > before) {
    CompletionEvent e;
    e.kind = CompletionEvent::Kind::kText;
    e.text = t.text.substr(before);
    t.on_event(e);
  }
  if (!t.stopped && t.request.should_stop && t.request.should_stop(t.text)) {
    t.stopped = true;
    t.stop = StopReason::kStopCallback;
  }
  return !t.stopped;
}

std::string RemoteBackend::fim_markers_in(const std::string& text) const {
  for (const std::string& m : markers_)
    if (text.find(m) != std::string::npos) return m;
  return {};
}

void RemoteBackend::done(uint64_t id, CURLcode rc) {
  auto it = transfers_.find(id);
  if (it == transfers_.end()) return;
  Transfer& t = *it->second;
  long status = 0;
  curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &status);
  if (!t.fim_problem.empty())
    return failed(t,
                  "the model behind " + shown_url_ + " does not seem to know the FIM template (its answer contains '" +
                      t.fim_problem + "'); set fimTemplate for the model, or use a code model with fill-in-the-middle",
                  true);
  if (!t.stream_error.empty())
    return failed(t, shown_url_ + " failed in the middle of the answer: " + t.stream_error, true);
  if (t.stopped) {
    succeeded();
    CompletionEvent e;
    e.kind = CompletionEvent::Kind::kDone;
    e.text = t.text;
    e.stop = t.stop;
    return finish(t, std::move(e));
  }
  if (status >= 400 && (rc == CURLE_OK || rc == CURLE_WRITE_ERROR)) {
    std::string why = remote_error_message(t.raw);
    if (remote_fim_unsupported(status, t.raw))
      return failed(t, "the model behind " + shown_url_ + " cannot fill in the middle (HTTP " + std::to_string(status) + ": " + why +
                           "); use a code model with FIM tokens",
                    true);
    if (status == 401 || status == 403)
      return failed(t, shown_url_ + " refused the request (HTTP " + std::to_string(status) + ": " + why + "); check the API key", true);
    // Server-side trouble and a wrong URL back off; a request the server disliked does not.
    const bool backoff = status >= 500 || status == 404 || status == 405 || status == 429;
    return failed(t, shown_url_ + " answered HTTP " + std::to_string(status) + ": " + why, backoff);
  }
  if (rc != CURLE_OK) {
    std::string why;
    switch (rc) {
      case CURLE_COULDNT_CONNECT:
      case CURLE_COULDNT_RESOLVE_HOST:
        why = "cannot connect to " + shown_url_ + " (" + curl_easy_strerror(rc) + "); is the server running?";
        break;
      case CURLE_OPERATION_TIMEDOUT:
        why = shown_url_ + " did not answer within " + std::to_string(static_cast<int>(opt_.timeout_ms)) + " ms";
        break;
      case CURLE_PEER_FAILED_VERIFICATION:
        why = "the TLS certificate of " + shown_url_ + " is not trusted by this system's certificates (" +
              curl_easy_strerror(rc) + ")";
        break;
      case CURLE_GOT_NOTHING:
      case CURLE_PARTIAL_FILE:
      case CURLE_RECV_ERROR:
        why = "the connection to " + shown_url_ + " broke before the answer was complete";
        break;
      default:
        why = shown_url_ + ": " + curl_easy_strerror(rc);
    }
    return failed(t, why, true);
  }
  // A stream that ended, or a plain JSON body from a server that does not stream.
  if (!t.saw_event) {
    json j = json::parse(t.raw, nullptr, false);
    if (j.is_discarded()) return failed(t, shown_url_ + " sent an answer that is neither JSON nor server-sent events", true);
    RemoteChunk c = parse_remote_chunk(j, opt_.api);
    t.timings.tokens_reused = c.tokens_reused;
    t.timings.tokens_prefilled = c.tokens_prefilled;
    t.timings.tokens_generated = c.tokens_generated;
    if (!c.text.empty() && !add_text(t, c.text) && !t.fim_problem.empty()) return done(id, rc);
  } else if (t.sse.pending() > 0) {
    return failed(t, "the connection to " + shown_url_ + " broke before the answer was complete", true);
  }
  succeeded();
  CompletionEvent e;
  e.kind = CompletionEvent::Kind::kDone;
  e.text = t.text;
  e.stop = t.stopped ? t.stop : StopReason::kEndOfText;
  finish(t, std::move(e));
}

void RemoteBackend::finish(Transfer& t, CompletionEvent e) {
  e.timings = t.timings;
  e.timings.total_ms = ms(Clock::now() - t.started);
  e.timings.decode_ms = e.timings.first_token_ms > 0 ? e.timings.total_ms - e.timings.first_token_ms : 0;
  e.timings.cancelled = e.stop == StopReason::kCancelled;
  // Take the transfer out first: the callback may start the next one.
  auto node = transfers_.extract(t.id);
  std::unique_ptr<Transfer> owned = std::move(node.mapped());
  curl_.remove(owned->easy);  // no-op when libcurl already ended it
  curl_easy_cleanup(owned->easy);
  curl_slist_free_all(owned->headers);
  owned->on_event(e);
}

void RemoteBackend::failed(Transfer& t, const std::string& message, bool backoff) {
  if (backoff) {
    ++failures_;
    double wait = std::min(opt_.backoff_max_ms, opt_.backoff_min_ms * std::pow(2.0, std::min(failures_ - 1, 30)));
    retry_at_ = Clock::now() + std::chrono::microseconds(static_cast<int64_t>(wait * 1000));
  }
  if (message != problem_) {
    problem_ = message;
    if (on_health_) on_health_(false, message);
  }
  CompletionEvent e;
  e.kind = CompletionEvent::Kind::kError;
  e.stop = StopReason::kError;
  e.error = message;
  finish(t, std::move(e));
}

void RemoteBackend::succeeded() {
  failures_ = 0;
  retry_at_ = {};
  if (!problem_.empty()) {
    problem_.clear();
    if (on_health_) on_health_(true, "wafer: " + name_ + " at " + shown_url_ + " answers again");
  }
}

void RemoteBackend::cancel(uint64_t id) {
  auto it = transfers_.find(id);
  if (it == transfers_.end()) return;
  CompletionEvent e;
  e.kind = CompletionEvent::Kind::kDone;
  e.text = it->second->text;
  e.stop = StopReason::kCancelled;
  finish(*it->second, std::move(e));
}

Result<RemoteOptions> remote_options(const RemoteSettings& o) {
  RemoteOptions r;
  if (o.backend == "llama-server") r.api = RemoteApi::kLlamaCpp;
  else if (o.backend == "openai") r.api = RemoteApi::kOpenAi;
  else return make_error("backend: expected local, llama-server or openai, got '" + o.backend + "'");
  if (o.url.empty()) return make_error("backend " + o.backend + ": backendUrl (--backend-url) is not set");
  if (!o.url.starts_with("http://") && !o.url.starts_with("https://"))
    return make_error("backendUrl: expected an http:// or https:// URL, got '" + o.url + "'");
  r.url = o.url;
  r.model = o.model;
  r.prompt_template = o.prompt_template;
  if (Status format = check_fim_format(o.fim_format); !format) return make_error("fimFormat: " + format.error().message);
  r.fim_format = o.fim_format;
  r.timeout_ms = o.timeout_ms;
  if (!o.api_key_env.empty()) {
    const char* v = std::getenv(o.api_key_env.c_str());
    if (!v || !*v) return make_error("apiKeyEnv: the environment variable " + o.api_key_env + " is not set");
    r.api_key = v;
  } else if (!o.api_key_file.empty()) {
    std::ifstream in(path_from_utf8(o.api_key_file));
    if (!in) return make_error("apiKeyFile: cannot read " + o.api_key_file);
    std::stringstream ss;
    ss << in.rdbuf();
    r.api_key = ss.str();
    while (!r.api_key.empty() && std::isspace(static_cast<unsigned char>(r.api_key.back()))) r.api_key.pop_back();
    if (r.api_key.empty()) return make_error("apiKeyFile: " + o.api_key_file + " is empty");
  }
  if (r.api_key.find_first_of("\r\n") != std::string::npos) return make_error("the API key holds a line break");
  return r;
}

}  // namespace wafer
