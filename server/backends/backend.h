// A completion backend that works on the daemon's loop thread without blocking it: a
// remote inference server over HTTP (remote_backend.h). The in-process engine is the
// other kind — a blocking wafer::Engine that the scheduler runs on its engine thread.
//
// Both take the same CompletionRequest and answer with the same CompletionEvents through
// the scheduler, so debouncing, latest-wins cancellation, stop rules (should_stop),
// filters, typing-through, streaming to the editor and statistics are one code path
// whichever backend answers; only where the tokens come from differs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "engine/engine.h"

namespace wafer {

class Backend {
 public:
  virtual ~Backend() = default;
  // What answers: "llama-server", "openai" (reported as served_by and in statistics).
  virtual const std::string& name() const = 0;
  virtual const ModelInfo& info() const = 0;
  // Starts one completion. Events (text deltas, then exactly one kDone or kError) come
  // through on_event on the loop thread, possibly before start() returns.
  virtual void start(uint64_t id, const CompletionRequest& request, CompletionCallback on_event) = 0;
  // Aborts a started completion at once (its connection is closed); its final event is
  // kDone with StopReason::kCancelled, possibly before cancel() returns. Unknown ids are
  // ignored.
  virtual void cancel(uint64_t id) = 0;
  // Aborts everything without further events and releases handles (the loop must run
  // afterwards to close them). Idempotent.
  virtual void close() = 0;
};

}  // namespace wafer
