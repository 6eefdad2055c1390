#include "server/bench_http.h"

#include <curl/curl.h>

#include <map>

#include "server/context.h"
#include "server/documents.h"

namespace wafer::bench {
namespace {

using json = nlohmann::json;

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

int int_at(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<int>() : -1;
}

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
      int numfds = 0;
      curl_multi_poll(multi_, nullptr, 0, static_cast<int>(std::max<int64_t>(1, left)), &numfds);
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
    std::string received;  // whole body (non-streamed) or the unparsed tail of the stream
    HttpChunk sum;         // streamed: text so far and the last token counts seen
  };

  static size_t on_data(char* data, size_t size, size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    t->received.append(data, size * n);
    if (t->self->opt_.stream) t->self->parse_events(*t);
    return size * n;
  }

  // Server-sent events: "data: {json}" lines; "data: [DONE]" ends an OpenAI stream.
  void parse_events(Transfer& t) {
    size_t nl;
    bool grew = false;
    while ((nl = t.received.find('\n')) != std::string::npos) {
      std::string line = t.received.substr(0, nl);
      t.received.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.starts_with("data:")) continue;
      std::string data = line.substr(line[5] == ' ' ? 6 : 5);
      json j = json::parse(data, nullptr, false);
      if (j.is_discarded()) continue;
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

std::string endpoint_url(const std::string& base, HttpApi api) {
  std::string u = base;
  if (u.ends_with("/infill") || u.ends_with("/completions")) return u;
  while (!u.empty() && u.back() == '/') u.pop_back();
  if (api == HttpApi::kLlamaCpp) return u + "/infill";
  return u.ends_with("/v1") ? u + "/completions" : u + "/v1/completions";
}

json http_request_body(const HttpTargetOptions& o, const std::string& prefix, const std::string& suffix) {
  if (o.api == HttpApi::kLlamaCpp)
    return {{"input_prefix", prefix}, {"input_suffix", suffix}, {"input_extra", json::array()},
            {"n_predict", o.max_tokens}, {"cache_prompt", true}, {"temperature", 0}, {"stream", o.stream}};
  // Substitute {suffix} first so a prefix that contains "{suffix}" is left alone.
  std::string prompt = replace_all(o.fim_template, "{suffix}", suffix);
  size_t at = prompt.find("{prefix}");
  if (at != std::string::npos) prompt.replace(at, 8, prefix);
  json body = {{"prompt", prompt}, {"max_tokens", o.max_tokens}, {"temperature", 0}, {"stream", o.stream}};
  if (!o.model.empty()) body["model"] = o.model;
  return body;
}

HttpChunk parse_http_chunk(const json& j, HttpApi api) {
  HttpChunk c;
  if (!j.is_object()) return c;
  if (api == HttpApi::kLlamaCpp) {
    if (auto it = j.find("content"); it != j.end() && it->is_string()) c.text = it->get<std::string>();
    if (auto t = j.find("timings"); t != j.end() && t->is_object()) {
      c.tokens_prefilled = int_at(*t, "prompt_n");
      c.tokens_generated = int_at(*t, "predicted_n");
      c.tokens_reused = int_at(*t, "cache_n");
    }
    if (c.tokens_reused < 0) c.tokens_reused = int_at(j, "tokens_cached");
    if (c.tokens_generated < 0) c.tokens_generated = int_at(j, "tokens_predicted");
    return c;
  }
  if (auto ch = j.find("choices"); ch != j.end() && ch->is_array() && !ch->empty() && (*ch)[0].is_object()) {
    const json& first = (*ch)[0];
    if (auto t = first.find("text"); t != first.end() && t->is_string()) c.text = t->get<std::string>();
  }
  if (auto u = j.find("usage"); u != j.end() && u->is_object()) {
    int prompt = int_at(*u, "prompt_tokens");
    c.tokens_generated = int_at(*u, "completion_tokens");
    int cached = 0;
    if (auto d = u->find("prompt_tokens_details"); d != u->end() && d->is_object()) cached = std::max(0, int_at(*d, "cached_tokens"));
    if (prompt >= 0) {
      c.tokens_reused = cached;
      c.tokens_prefilled = prompt - cached;
    }
  }
  return c;
}

std::unique_ptr<BenchTarget> make_http_target(HttpTargetOptions options) {
  return std::make_unique<HttpTarget>(std::move(options));
}

}  // namespace wafer::bench
