#include "server/benchtool/bench_replay.h"

#include <algorithm>
#include <map>
#include <optional>
#include <thread>

namespace wafer::bench {
namespace {

constexpr int kRequestCancelled = -32800;
constexpr int kContentModified = -32801;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

Clock::time_point after_ms(Clock::time_point t, double ms) {
  return t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
}

// The replay's state: the document, the requests in flight and their records.
class Replayer {
 public:
  Replayer(const Trace& trace, BenchTarget& target, const ReplayOptions& options)
      : trace_(trace), target_(target), opt_(options), doc_(trace.text) {
    for (const TraceStep& s : trace.steps)
      if (s.edit) {
        cursor_ = s.edit->offset;
        break;
      }
  }

  Result<RunReport> run() {
    if (Status s = target_.open(trace_); !s) return s.error();
    if (Status s = warm_up(); !s) return s.error();
    start_ = Clock::now();
    Clock::time_point due = start_;
    size_t i = 0;
    while (i < trace_.steps.size()) {
      const TraceStep& step = trace_.steps[i];
      due = after_ms(due, step.delay_ms);
      if (Status s = wait_until(due, false); !s) return s.error();
      if (std::optional<size_t> next = try_accept(i)) {
        i = *next;
        continue;
      }
      if (step.edit) {
        std::string before = doc_;
        if (Status s = apply_edit(doc_, *step.edit); !s)
          return make_error("step " + std::to_string(i + 1) + ": " + s.error().message);
        ++version_;
        cursor_ = cursor_after(*step.edit);
        key_time_ = Clock::now();
        if (Status s = target_.change(*step.edit, before, {doc_, cursor_, version_}); !s) return s.error();
      } else {
        key_time_ = Clock::now();
      }
      ++keystrokes_;
      key_times_ms_.push_back(ms_between(start_, key_time_));
      if (step.request)
        if (Status s = send_request(static_cast<int>(i), step.kind); !s) return s.error();
      ++i;
      if (opt_.progress) opt_.progress(i, trace_.steps.size());
    }
    Clock::time_point last_key = Clock::now();
    if (Status s = wait_until(after_ms(last_key, opt_.drain_ms), true); !s) return s.error();
    RunReport report;
    report.target = target_.name();
    report.server_stats = target_.close();
    report.server_errors = target_.errors();
    report.requests = std::move(records_);
    report.summary = summarize(report.requests, keystrokes_, ms_between(start_, std::max(last_key, last_event_)),
                               key_times_ms_);
    return report;
  }

 private:
  struct Pending {
    size_t record;
    int64_t version;
    std::optional<std::string> truth;  // what the user typed next at that point
  };

  Status warm_up() {
    for (int w = 0; w < opt_.warmup; ++w) {
      int id = next_id_++;
      warmup_ids_.push_back(id);
      if (Status s = target_.request(id, {doc_, cursor_, version_}, true); !s) return s;
      Clock::time_point deadline = after_ms(Clock::now(), opt_.warmup_timeout_ms);
      while (std::find(warmup_ids_.begin(), warmup_ids_.end(), id) != warmup_ids_.end()) {
        if (Clock::now() >= deadline) return make_error("warm-up request got no answer in time");
        if (Status s = poll(deadline); !s) return s;
      }
      if (!warmup_error_.empty()) return make_error("warm-up request failed: " + warmup_error_);
    }
    return {};
  }

  Status poll(Clock::time_point deadline) {
    std::vector<TargetEvent> events;
    if (Status s = target_.poll(deadline, events); !s) return s;
    for (const TargetEvent& e : events) handle(e);
    return {};
  }

  // Handles target output until `deadline`; with until_idle, returns once nothing is in flight.
  Status wait_until(Clock::time_point deadline, bool until_idle) {
    while (Clock::now() < deadline) {
      if (until_idle && pending_.empty()) break;
      if (Status s = poll(deadline); !s) return s;
    }
    return {};
  }

  void handle(const TargetEvent& e) {
    if (auto w = std::find(warmup_ids_.begin(), warmup_ids_.end(), e.request); w != warmup_ids_.end()) {
      if (e.kind != TargetEvent::Kind::kPartial) warmup_ids_.erase(w);
      if (e.kind == TargetEvent::Kind::kError) warmup_error_ = e.error.empty() ? "error " + std::to_string(e.error_code) : e.error;
      return;
    }
    auto it = pending_.find(e.request);
    if (it == pending_.end()) return;
    last_event_ = e.at;
    RequestRecord& r = records_[it->second.record];
    const double since_key = ms_between(key_times_[it->second.record], e.at);
    if (e.kind == TargetEvent::Kind::kPartial) {
      if (r.first_text_ms < 0 && !e.text.empty()) r.first_text_ms = since_key;
      return;
    }
    if (e.kind == TargetEvent::Kind::kError) {
      r.error_code = e.error_code;
      r.error = e.error;
      r.outcome = e.cancelled || r.cancel_sent || e.error_code == kRequestCancelled ? "cancelled"
                  : e.error_code == kContentModified                               ? "stale"
                                                                                   : "error";
      pending_.erase(it);
      return;
    }
    r.final_ms = since_key;
    r.text = e.text;
    if (r.first_text_ms < 0 && !e.text.empty()) r.first_text_ms = since_key;
    r.tokens_reused = e.tokens_reused;
    r.tokens_prefilled = e.tokens_prefilled;
    r.tokens_generated = e.tokens_generated;
    r.served_by = !e.served_by.empty()                               ? e.served_by
                  : e.tokens_prefilled == 0 && e.tokens_reused > 0  ? "cache"
                  : e.tokens_generated >= 0                          ? "engine"
                                                                     : "unknown";
    if (e.superseded) r.outcome = "superseded";
    else if (r.cancel_sent) r.outcome = "cancelled";
    else if (it->second.version != version_) r.outcome = "stale";
    else r.outcome = e.text.empty() ? "empty" : "shown";
    if (it->second.truth) {
      r.truth_known = true;
      r.matched_chars = static_cast<int>(common_prefix(e.text, *it->second.truth));
      r.accepted = !e.text.empty() && static_cast<size_t>(r.matched_chars) == e.text.size();
    }
    if (r.outcome == "shown") shown_ = it->second.record;
    pending_.erase(it);
  }

  Status send_request(int step, const std::string& kind) {
    for (auto& [id, p] : pending_) {
      if (records_[p.record].cancel_sent) continue;
      records_[p.record].cancel_sent = true;
      target_.cancel(id);
    }
    int id = next_id_++;
    RequestRecord r;
    r.id = static_cast<int>(records_.size()) + 1;
    r.step = step;
    r.trigger = kind;
    r.at_ms = ms_between(start_, key_time_);
    records_.push_back(r);
    key_times_.push_back(key_time_);
    pending_[id] = {records_.size() - 1, version_, truth_at(doc_, cursor_, trace_.final_text)};
    shown_.reset();
    return target_.request(id, {doc_, cursor_, version_}, kind == "invoke");
  }

  // The simulated Tab: at a clean step, when the suggestion on screen is exactly what comes
  // next and the step's draw says so, insert it and skip the steps that would have typed
  // it. Returns the index of the step to continue with.
  std::optional<size_t> try_accept(size_t i) {
    const TraceStep& step = trace_.steps[i];
    if (!shown_ || !step.clean || step.pos < 0 || step.draw >= opt_.accept_probability) return std::nullopt;
    RequestRecord& r = records_[*shown_];
    if (!r.accepted || r.outcome != "shown") return std::nullopt;
    const int64_t target = step.pos + static_cast<int64_t>(r.text.size());
    size_t j = i;
    while (j < trace_.steps.size() && !(trace_.steps[j].clean && trace_.steps[j].pos >= target)) ++j;
    // The accepted text must end where a keystroke starts (or at the end of the region).
    if (j < trace_.steps.size() ? trace_.steps[j].pos != target : !region_ends_at(target)) return std::nullopt;
    TraceEdit e{cursor_, 0, r.text};
    std::string before = doc_;
    if (!apply_edit(doc_, e)) return std::nullopt;
    r.taken = true;
    shown_.reset();
    ++version_;
    cursor_ = cursor_after(e);
    key_time_ = Clock::now();
    ++keystrokes_;
    if (!target_.change(e, before, {doc_, cursor_, version_})) return trace_.steps.size();
    if (!send_request(static_cast<int>(i), "accept")) return trace_.steps.size();
    if (opt_.progress) opt_.progress(j, trace_.steps.size());
    return j;
  }

  bool region_ends_at(int64_t pos) const {
    const TraceStep& last = trace_.steps.back();
    return last.edit && last.pos >= 0 && last.pos + static_cast<int64_t>(last.edit->insert.size()) == pos;
  }

  const Trace& trace_;
  BenchTarget& target_;
  const ReplayOptions& opt_;
  std::string doc_;
  size_t cursor_ = 0;
  int64_t version_ = 1;
  int next_id_ = 1;
  int keystrokes_ = 0;
  std::vector<double> key_times_ms_;  // every keystroke, ms since the start
  std::vector<int> warmup_ids_;
  std::string warmup_error_;
  std::map<int, Pending> pending_;
  std::vector<RequestRecord> records_;
  std::vector<Clock::time_point> key_times_;
  std::optional<size_t> shown_;  // the record whose suggestion is on screen
  Clock::time_point start_, key_time_, last_event_;
};

}  // namespace

size_t common_prefix(const std::string& a, const std::string& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

Result<RunReport> replay(const Trace& trace, BenchTarget& target, const ReplayOptions& options) {
  if (trace.steps.empty()) return make_error("the trace has no steps");
  return Replayer(trace, target, options).run();
}

}  // namespace wafer::bench
