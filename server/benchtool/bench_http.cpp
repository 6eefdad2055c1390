#include "server/benchtool/bench_http.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "server/prompt/context.h"
#include "server/document/documents.h"

namespace wafer::bench {
namespace {

using json = nlohmann::json;

class HttpTarget : public BenchTarget {
 public:
  explicit HttpTarget(HttpTargetOptions o) : opt_(std::move(o)), url_(endpoint_url(opt_.url, opt_.api)) {}

  ~HttpTarget() override {
    for (auto& [id, r] : transfers_) drop(*r);
    if (multi_) curl_multi_cleanup(multi_);
  }

  std::string name() const override {
    return std::string(opt_.api == HttpApi::kOpenAi ? "openai " : "llama.cpp infill ") + url_;
  }

  Status open(const Trace& trace) override {
    static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    if (!initialised) return make_error("libcurl failed to initialise");
    multi_ = curl_multi_init();
    if (!multi_) return make_error("libcurl: no multi handle");
    uri_ = "file://" + trace.path;
    return {};
  }

  Status change(const TraceEdit&, const std::string&, const DocState&) override { return {}; }

  Status request(int id, const DocState& doc, bool) override {
    auto snap = make_snapshot(uri_, "", doc.version, doc.text);
    FimWindow w;
    w.prefix_lines = opt_.prefix_lines;
    w.suffix_lines = opt_.suffix_lines;
    // Line windows and wafer's default token budgets; no syntax tree (cuts by lines).
    const CompletionRequest fim = build_context(*snap, nullptr, nullptr, doc.cursor, w).request;
    auto t = std::make_unique<Transfer>();
    t->self = this;
    t->id = id;
    t->body = http_request_body(opt_, fim.prefix, fim.suffix).dump(-1, ' ', false, json::error_handler_t::replace);
    t->easy = curl_easy_init();
    if (!t->easy) return make_error("libcurl: no easy handle");
    t->headers = curl_slist_append(nullptr, "Content-Type: application/json");
    curl_easy_setopt(t->easy, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, t->headers);
    curl_easy_setopt(t->easy, CURLOPT_POSTFIELDS, t->body.c_str());
    curl_easy_setopt(t->easy, CURLOPT_POSTFIELDSIZE, static_cast<long>(t->body.size()));
    curl_easy_setopt(t->easy, CURLOPT_WRITEFUNCTION, &HttpTarget::on_data);
    curl_easy_setopt(t->easy, CURLOPT_WRITEDATA, t.get());
    curl_easy_setopt(t->easy, CURLOPT_PRIVATE, t.get());
    curl_easy_setopt(t->easy, CURLOPT_TIMEOUT_MS, static_cast<long>(opt_.timeout_ms));
    curl_easy_setopt(t->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(t->easy, CURLOPT_TCP_NODELAY, 1L);
    curl_multi_add_handle(multi_, t->easy);
    transfers_[id] = std::move(t);
    return {};
  }

  void cancel(int id) override {
    auto it = transfers_.find(id);
    if (it == transfers_.end()) return;
    drop(*it->second);
    transfers_.erase(it);
    TargetEvent e;
    e.kind = TargetEvent::Kind::kError;
    e.request = id;
    e.at = Clock::now();
    e.cancelled = true;
    e.error = "cancelled by the client";
    events_.push_back(std::move(e));
  }

  Status poll(Clock::time_point deadline, std::vector<TargetEvent>& out) override {
    for (;;) {
      int running = 0;
      curl_multi_perform(multi_, &running);
      collect_done();
      if (!events_.empty() || Clock::now() >= deadline) break;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      // curl_multi_wait, not curl_multi_poll (libcurl 7.66): macOS 11 ships libcurl 7.64. It
      // returns at once when curl has no socket to wait on (between connection attempts);
      // sleep a millisecond then instead of spinning.
      int numfds = 0;
      const auto wait_ms = static_cast<int>(std::min<int64_t>(std::max<int64_t>(1, left), 1000));
      const auto waited_from = Clock::now();
      const CURLMcode rc = curl_multi_wait(multi_, nullptr, 0, wait_ms, &numfds);
      if (rc != CURLM_OK || (numfds == 0 && Clock::now() - waited_from < std::chrono::milliseconds(1)))
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    for (auto& e : events_) out.push_back(std::move(e));
    events_.clear();
    return {};
  }

  json close() override { return nullptr; }

 private:
  struct Transfer {
    HttpTarget* self = nullptr;
    int id = 0;
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    std::string body;
    std::string received;  // the whole body (an error's message)
    SseReader sse;
    HttpChunk sum;         // streamed: text so far and the last token counts seen
  };

  static size_t on_data(char* data, size_t size, size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    t->received.append(data, size * n);
    if (t->self->opt_.stream) t->self->parse_events(*t, std::string_view(data, size * n));
    return size * n;
  }

  void parse_events(Transfer& t, std::string_view bytes) {
    bool grew = false;
    for (const SseEvent& event : t.sse.feed(bytes)) {
      json j = json::parse(event.data, nullptr, false);
      if (j.is_discarded()) continue;  // "[DONE]" and anything else that is not JSON
      HttpChunk c = parse_http_chunk(j, opt_.api);
      t.sum.text += c.text;
      grew |= !c.text.empty();
      if (c.tokens_generated >= 0) t.sum.tokens_generated = c.tokens_generated;
      if (c.tokens_prefilled >= 0) t.sum.tokens_prefilled = c.tokens_prefilled;
      if (c.tokens_reused >= 0) t.sum.tokens_reused = c.tokens_reused;
    }
    if (grew) {
      TargetEvent e;
      e.kind = TargetEvent::Kind::kPartial;
      e.request = t.id;
      e.at = Clock::now();
      e.text = t.sum.text;
      events_.push_back(std::move(e));
    }
  }

  void collect_done() {
    int left = 0;
    while (CURLMsg* m = curl_multi_info_read(multi_, &left)) {
      if (m->msg != CURLMSG_DONE) continue;
      char* priv = nullptr;
      curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &priv);
      auto* t = reinterpret_cast<Transfer*>(priv);
      if (!t) continue;
      TargetEvent e;
      e.request = t->id;
      e.at = Clock::now();
      long status = 0;
      curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
      if (m->data.result != CURLE_OK || status >= 400) {
        e.kind = TargetEvent::Kind::kError;
        e.error_code = m->data.result != CURLE_OK ? -1 : static_cast<int>(status);
        e.error = m->data.result != CURLE_OK ? curl_easy_strerror(m->data.result)
                                             : "HTTP " + std::to_string(status) + ": " + t->received.substr(0, 200);
      } else {
        HttpChunk c = t->sum;
        if (!opt_.stream) {
          json j = json::parse(t->received, nullptr, false);
          c = j.is_discarded() ? HttpChunk{} : parse_http_chunk(j, opt_.api);
        }
        e.kind = TargetEvent::Kind::kFinal;
        e.text = c.text;
        e.tokens_reused = c.tokens_reused;
        e.tokens_prefilled = c.tokens_prefilled;
        e.tokens_generated = c.tokens_generated;
      }
      events_.push_back(std::move(e));
      int id = t->id;
      drop(*t);
      transfers_.erase(id);
    }
  }

  void drop(Transfer& t) {
    if (t.easy) {
      curl_multi_remove_handle(multi_, t.easy);
      curl_easy_cleanup(t.easy);
      t.easy = nullptr;
    }
    if (t.headers) curl_slist_free_all(t.headers);
    t.headers = nullptr;
  }

  HttpTargetOptions opt_;
  std::string url_;
  std::string uri_;
  CURLM* multi_ = nullptr;
  std::map<int, std::unique_ptr<Transfer>> transfers_;
  std::vector<TargetEvent> events_;
};

}  // namespace

json http_request_body(const HttpTargetOptions& o, const std::string& prefix, const std::string& suffix) {
  RemoteRequest r;
  r.prefix = prefix;
  r.suffix = suffix;
  r.max_tokens = o.max_tokens;
  r.stream = o.stream;
  if (o.api == HttpApi::kLlamaCpp) return llama_infill_body(r);
  r.model = o.model;
  CompletionRequest fim;
  fim.prefix = prefix;
  fim.suffix = suffix;
  r.prompt = remote_fim_prompt(o.prompt_template, "auto", fim);
  return openai_completion_body(r);
}

std::unique_ptr<BenchTarget> make_http_target(HttpTargetOptions options) {
  return std::make_unique<HttpTarget>(std::move(options));
}

}  // namespace wafer::bench
