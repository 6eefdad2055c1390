#include "server/backends/remote_api.h"

#include <algorithm>
#include <limits>

namespace wafer {
namespace {

using json = nlohmann::json;

// A token count from the server: a number from 0 to INT_MAX, else -1 (not said). A count
// like 1e300 or -5 says nothing usable, and converting it to int would be undefined.
int int_at(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return -1;
  const double v = it->get<double>();
  return v >= 0 && v <= std::numeric_limits<int>::max() ? static_cast<int>(v) : -1;
}

}  // namespace

std::string endpoint_url(const std::string& base, RemoteApi api) {
  std::string u = base;
  if (u.ends_with("/infill") || u.ends_with("/completions")) return u;
  while (!u.empty() && u.back() == '/') u.pop_back();
  if (api == RemoteApi::kLlamaCpp) return u + "/infill";
  return u.ends_with("/v1") ? u + "/completions" : u + "/v1/completions";
}

std::string redact_url(const std::string& url) {
  size_t scheme = url.find("://");
  size_t from = scheme == std::string::npos ? 0 : scheme + 3;
  size_t end = url.find_first_of("/?#", from);
  size_t at = url.rfind('@', end == std::string::npos ? url.size() : end);
  if (at == std::string::npos || at < from) return url;
  return url.substr(0, from) + "***" + url.substr(at);
}

json llama_infill_body(const RemoteRequest& r) {
  json extra = json::array();
  for (const ContextFile& f : r.extra) extra.push_back({{"filename", f.path}, {"text", f.text}});
  json body = {{"input_prefix", r.prefix}, {"input_suffix", r.suffix}, {"input_extra", std::move(extra)},
               {"n_predict", r.max_tokens}, {"cache_prompt", true}, {"temperature", 0}, {"stream", r.stream}};
  if (r.n_indent >= 0) body["n_indent"] = r.n_indent;
  if (r.max_predict_ms > 0) body["t_max_predict_ms"] = static_cast<int64_t>(r.max_predict_ms);
  if (!r.stop.empty()) body["stop"] = r.stop;
  return body;
}

json openai_completion_body(const RemoteRequest& r) {
  json body = {{"prompt", r.prompt}, {"max_tokens", r.max_tokens}, {"temperature", 0}, {"stream", r.stream}};
  if (!r.stop.empty()) body["stop"] = r.stop;
  if (!r.model.empty()) body["model"] = r.model;
  return body;
}

RemoteChunk parse_remote_chunk(const json& j, RemoteApi api) {
  RemoteChunk c;
  if (!j.is_object()) return c;
  if (api == RemoteApi::kLlamaCpp) {
    if (auto it = j.find("content"); it != j.end() && it->is_string()) c.text = it->get<std::string>();
    if (auto t = j.find("timings"); t != j.end() && t->is_object()) {
      c.tokens_prefilled = int_at(*t, "prompt_n");
      c.tokens_generated = int_at(*t, "predicted_n");
      c.tokens_reused = int_at(*t, "cache_n");
    }
    if (c.tokens_reused < 0) c.tokens_reused = int_at(j, "tokens_cached");
    if (c.tokens_generated < 0) c.tokens_generated = int_at(j, "tokens_predicted");
    if (auto s = j.find("stop"); s != j.end() && s->is_boolean()) c.last = s->get<bool>();
    return c;
  }
  if (auto ch = j.find("choices"); ch != j.end() && ch->is_array() && !ch->empty() && (*ch)[0].is_object()) {
    const json& first = (*ch)[0];
    if (auto t = first.find("text"); t != first.end() && t->is_string()) c.text = t->get<std::string>();
    if (auto f = first.find("finish_reason"); f != first.end() && f->is_string()) c.last = true;
  }
  if (auto u = j.find("usage"); u != j.end() && u->is_object()) {
    int prompt = int_at(*u, "prompt_tokens");
    c.tokens_generated = int_at(*u, "completion_tokens");
    int cached = 0;
    if (auto d = u->find("prompt_tokens_details"); d != u->end() && d->is_object()) cached = std::max(0, int_at(*d, "cached_tokens"));
    if (prompt >= 0) {
      c.tokens_reused = cached;
      c.tokens_prefilled = std::max(0, prompt - cached);  // both in [0, INT_MAX]: no overflow
    }
  }
  return c;
}

std::vector<SseEvent> SseReader::feed(std::string_view bytes) {
  std::vector<SseEvent> events;
  for (char ch : bytes) {
    if (ch != '\n') {
      line_ += ch;
      continue;
    }
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    if (line_.empty()) {  // a blank line ends the event
      if (has_data_) events.push_back(std::move(event_));
      event_ = {};
      has_data_ = false;
    } else if (const bool error = line_.starts_with("error:"); error || line_.starts_with("data:")) {
      std::string_view v(line_);
      v.remove_prefix(error ? 6 : 5);
      if (!v.empty() && v.front() == ' ') v.remove_prefix(1);
      if (has_data_) event_.data += '\n';
      event_.data += v;
      event_.error |= error;
      has_data_ = true;
    }
    line_.clear();
  }
  return events;
}

std::string remote_error_message(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  std::string m;
  if (j.is_object()) {
    if (auto e = j.find("error"); e != j.end()) {
      if (e->is_string()) m = e->get<std::string>();
      else if (e->is_object() && e->contains("message") && (*e)["message"].is_string()) m = (*e)["message"].get<std::string>();
    }
    if (m.empty() && j.contains("message") && j["message"].is_string()) m = j["message"].get<std::string>();
    if (m.empty() && j.contains("detail") && j["detail"].is_string()) m = j["detail"].get<std::string>();
  }
  if (m.empty()) m = body;
  while (!m.empty() && (m.back() == '\n' || m.back() == '\r' || m.back() == ' ')) m.pop_back();
  if (m.size() > 200) m = m.substr(0, 200) + "...";
  return m;
}

bool remote_fim_unsupported(long http_status, const std::string& body) {
  if (http_status == 501) return true;
  json j = json::parse(body, nullptr, false);
  if (j.is_object())
    if (auto e = j.find("error"); e != j.end() && e->is_object())
      if (auto t = e->find("type"); t != e->end() && t->is_string() && *t == "not_supported_error") return true;
  return false;
}

}  // namespace wafer
