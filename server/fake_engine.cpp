#include "server/fake_engine.h"

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "server/utf8.h"

namespace wafer {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

bool cancelled(const CompletionRequest& r) { return r.cancel && r.cancel->load(); }

// Waits up to ms, returning early (true) when the request is cancelled.
bool wait_cancellable(const CompletionRequest& r, double ms) {
  auto until = Clock::now() + std::chrono::duration<double, std::milli>(ms);
  while (Clock::now() < until) {
    if (cancelled(r)) return true;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return cancelled(r);
}

}  // namespace

Result<FakeScript> parse_fake_script(std::string_view json_text) {
  nlohmann::json j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return make_error("fake engine script: not a JSON object");
  FakeScript s;
  try {
    s.text = j.value("text", s.text);
    s.echo_prefix_tail = j.value("echo_prefix_tail", s.echo_prefix_tail);
    s.chunk_bytes = std::max<size_t>(1, j.value("chunk_bytes", s.chunk_bytes));
    s.first_token_ms = j.value("first_token_ms", s.first_token_ms);
    s.token_ms = j.value("token_ms", s.token_ms);
    s.has_fim = j.value("has_fim", s.has_fim);
    s.name = j.value("name", s.name);
    s.fail = j.value("fail", s.fail);
    s.fail_after_chunks = j.value("fail_after_chunks", s.fail_after_chunks);
    s.sampled = j.value("sampled", s.sampled);
    if (auto rules = j.find("rules"); rules != j.end())
      for (const auto& r : *rules) s.rules.push_back({r.at("prefix_ends_with").get<std::string>(), r.at("text").get<std::string>()});
  } catch (const nlohmann::json::exception& e) {
    return make_error(std::string("fake engine script: ") + e.what());
  }
  return s;
}

Result<FakeScript> load_fake_script(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("cannot read fake engine script '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_fake_script(ss.str());
}

FakeEngine::FakeEngine(FakeScript script) : script_(std::move(script)) {
  info_.name = script_.name;
  info_.architecture = "fake";
  info_.has_fim = script_.has_fim;
  info_.context_length = 4096;
}

void FakeEngine::hold(bool on) {
  std::lock_guard lock(mu_);
  hold_ = on;
  cv_.notify_all();
}

void FakeEngine::release() {
  std::lock_guard lock(mu_);
  ++releases_;
  cv_.notify_all();
}

bool FakeEngine::wait_until_held(int count) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return held_ >= count; });
}

int FakeEngine::held() const {
  std::lock_guard lock(mu_);
  return held_;
}

int FakeEngine::calls() const {
  std::lock_guard lock(mu_);
  return calls_;
}

CompletionRequest FakeEngine::last_request() const {
  std::lock_guard lock(mu_);
  return last_;
}

void FakeEngine::complete(const CompletionRequest& request, const CompletionCallback& on_event) {
  auto t0 = Clock::now();
  {
    std::unique_lock lock(mu_);
    ++calls_;
    last_ = request;
    last_.should_stop = nullptr;
    if (hold_) {
      int ticket = ++held_;
      cv_.notify_all();
      while (hold_ && releases_ < ticket && !cancelled(request)) cv_.wait_for(lock, std::chrono::milliseconds(1));
    }
  }
  CompletionEvent done;
  done.kind = CompletionEvent::Kind::kDone;
  auto finish = [&](StopReason why) {
    done.stop = why;
    done.timings.total_ms = ms_since(t0);
    done.timings.cancelled = why == StopReason::kCancelled;
    on_event(done);
  };
  auto fail = [&] {
    CompletionEvent e;
    e.kind = CompletionEvent::Kind::kError;
    e.error = script_.fail;
    e.stop = StopReason::kError;
    e.timings.total_ms = ms_since(t0);
    on_event(e);
  };
  if (!script_.fail.empty() && script_.fail_after_chunks == 0) return fail();
  if (request.prefill_only) return finish(StopReason::kMaxTokens);  // nothing to prefill, nothing to say
  std::string target = script_.text;
  for (const auto& r : script_.rules)
    if (request.prefix.ends_with(r.prefix_ends_with)) {
      target = r.text;
      break;
    }
  if (request.temperature > 0 && !script_.sampled.empty()) target = script_.sampled[request.seed % script_.sampled.size()];
  if (script_.echo_prefix_tail) {
    size_t n = std::min(script_.echo_prefix_tail, request.prefix.size());
    target += request.prefix.substr(request.prefix.size() - n);
  }
  target = sanitize_utf8(target);
  if (wait_cancellable(request, script_.first_token_ms)) return finish(StopReason::kCancelled);
  size_t pos = 0;
  while (pos < target.size()) {
    if (cancelled(request)) return finish(StopReason::kCancelled);
    if (done.timings.tokens_generated >= request.max_tokens) return finish(StopReason::kMaxTokens);
    // A chunk of about chunk_bytes, never splitting a UTF-8 sequence.
    size_t end = pos;
    while (end < target.size() && end - pos < script_.chunk_bytes) {
      size_t n = utf8_sequence_length(target, end);
      end += n ? n : 1;
    }
    std::string candidate = done.text + target.substr(pos, end - pos);
    for (const std::string& stop : request.stop) {
      size_t at = stop.empty() ? std::string::npos : candidate.find(stop);
      if (at != std::string::npos) {
        if (at > done.text.size()) on_event({CompletionEvent::Kind::kText, candidate.substr(done.text.size(), at - done.text.size())});
        done.text = candidate.substr(0, at);
        return finish(StopReason::kStopString);
      }
    }
    if (done.timings.tokens_generated == 0) done.timings.first_token_ms = ms_since(t0);
    ++done.timings.tokens_generated;
    CompletionEvent e;
    e.text = target.substr(pos, end - pos);
    done.text = std::move(candidate);
    on_event(e);
    pos = end;
    if (!script_.fail.empty() && done.timings.tokens_generated == static_cast<int>(script_.fail_after_chunks)) return fail();
    if (request.should_stop && request.should_stop(done.text)) return finish(StopReason::kStopCallback);
    if (pos < target.size() && wait_cancellable(request, script_.token_ms)) return finish(StopReason::kCancelled);
  }
  finish(StopReason::kEndOfText);
}

}  // namespace wafer
