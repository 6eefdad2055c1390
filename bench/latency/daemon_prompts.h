// bench_latency's prompts as the daemon builds them: the file open in a workspace (parsed
// by its grammar), the request for each keystroke made by server/service/completion_request
// with the daemon's default settings - the FIM window at syntactic cut points, the
// repository-level header and file name, extra context (the file's own definitions beyond
// the window, kept while the window's start stays, as the daemon keeps it), token healing,
// stop rules and the first-token budget of a request made while typing. Only the engine time is measured; what the daemon adds around it
// (debounce, scheduling, background prefills) is `wafer bench replay`'s to show.
#pragma once

#include <memory>
#include <string>

#include "engine/engine.h"

namespace wafer::bench {

class DaemonPrompts {
 public:
  // path names the file (its language, its workspace root); model shapes the window.
  // latency_budget_ms: the first-token budget of a request made while typing (the daemon's
  // latencyBudgetMs; -1: its default, 0: none).
  DaemonPrompts(const std::string& path, const ModelInfo& model, int max_tokens, int latency_budget_ms = -1);
  ~DaemonPrompts();

  // The request with the document's text `text` and the cursor at byte `cursor`.
  CompletionRequest request(const std::string& text, size_t cursor);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace wafer::bench
