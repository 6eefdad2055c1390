// The replay loop of `wafer bench`: plays a trace against a completion target in real
// time, as an editor would — after each keystroke the edit, then a new completion request
// with the stale ones cancelled — and records per request when text arrived and whether
// it matched what the user typed next. A simulated user presses Tab on a matching
// suggestion with a set probability (synthesized traces), skipping the keystrokes that
// would have typed it.
//
// Targets (an LSP server over pipes, an HTTP endpoint) implement BenchTarget; the loop is
// single-threaded and waits on the target's I/O until the next keystroke is due.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/base/result.h"
#include "server/benchtool/bench_report.h"
#include "server/benchtool/bench_trace.h"

namespace wafer::bench {

using Clock = std::chrono::steady_clock;

// The document as the target should see it.
struct DocState {
  const std::string& text;
  size_t cursor;
  int64_t version;
};

// Something that arrived from a target for one request.
struct TargetEvent {
  enum class Kind { kPartial, kFinal, kError } kind = Kind::kFinal;
  int request = 0;
  Clock::time_point at;
  std::string text;       // kPartial: the suggestion so far; kFinal: the suggestion
  int error_code = 0;     // kError
  std::string error;      // kError
  bool cancelled = false; // kError: the server reports the request as cancelled
  // kFinal: the server reports that a newer request replaced this one (wafer answers such a
  // request with an empty result marked {"wafer": {"outcome": "superseded"}})
  bool superseded = false;
  std::string served_by;  // kFinal, when reported
  int tokens_reused = -1, tokens_prefilled = -1, tokens_generated = -1;
};

class BenchTarget {
 public:
  virtual ~BenchTarget() = default;
  virtual std::string name() const = 0;
  // Starts the target and opens the document.
  virtual Status open(const Trace& trace) = 0;
  // The document changed by `edit` (before: the text before it).
  virtual Status change(const TraceEdit& edit, const std::string& before, const DocState& after) = 0;
  // Asks for a completion at the cursor; `invoked`: explicitly requested, not typing.
  virtual Status request(int id, const DocState& doc, bool invoked) = 0;
  virtual void cancel(int id) = 0;
  // Waits for output until `deadline` (returns earlier once something arrived).
  virtual Status poll(Clock::time_point deadline, std::vector<TargetEvent>& out) = 0;
  // Stops the target; returns the statistics it reports about itself, or null.
  virtual nlohmann::json close() = 0;
  // Errors the server reported on the side (e.g. window/logMessage), first ones, distinct.
  virtual std::vector<std::string> errors() const { return {}; }
};

struct ReplayOptions {
  double accept_probability = 0.7;  // Tab on a matching suggestion (steps with a `draw`)
  int warmup = 1;                   // invoked requests answered before the clock starts
  double drain_ms = 15000;          // after the last keystroke, wait this long for answers
  double warmup_timeout_ms = 300000;  // model loading can take a while
  // Called after each step with (steps done, steps total).
  std::function<void(size_t, size_t)> progress;
};

// Replays the trace; the run's summary is filled in.
Result<RunReport> replay(const Trace& trace, BenchTarget& target, const ReplayOptions& options);

// Common prefix length of two strings, in bytes.
size_t common_prefix(const std::string& a, const std::string& b);

}  // namespace wafer::bench
