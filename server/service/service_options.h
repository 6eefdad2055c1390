// What the completion service reads of the settings, grouped by the part that reads it,
// and the one place they are filled from the settings (service_options.cpp). The names,
// defaults and docs of the settings are the settings table's (server/config/); these
// structs hold values only: a field's comment names its setting.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/base/result.h"
#include "engine/engine.h"
#include "server/backends/remote_backend.h"
#include "server/document/documents.h"
#include "server/index/allowed_roots.h"
#include "server/service/completion_request.h"

namespace wafer {

struct Options;

// When work reaches the engine: debounce, first-token budgets, work done while idle.
struct SchedulingOptions {
  int debounce_ms = 0;         // debounceMs
  int latency_budget_ms = 0;   // latencyBudgetMs (0: off)
  bool typing_budget = false;  // typingBudget: half the typical gap between keystrokes too
  bool early_prefill = false;  // earlyPrefill: a keystroke's prompt during its debounce
  bool warm = false;           // warm: honour wafer/warm
  int ahead_tokens = 0;        // aheadTokens: decode past a returned suggestion (0: off)
  double min_confidence = 0;   // minConfidence: the confidence gate of automatic requests (0: off; < 0: the
                               // model's, CompletionService::gate_threshold())
};

// The sampled alternatives of an invoked request.
struct AlternativesOptions {
  int count = 1;             // alternatives: the greedy suggestion + sampled ones (1: greedy only)
  double temperature = 0;    // alternativesTemperature
  double top_p = 1;          // alternativesTopP
};

// The workspace index.
struct IndexOptions {
  bool enabled = false;       // workspaceIndex
  int max_files = 0;          // indexMaxFiles, at most --max-index-files
  size_t max_bytes = 0;       // --max-index-mib
  AllowedRoots allowed;       // --allow-root with --listen: the folders a workspace may be in
};

// Content exclusion (index/exclusion.h): files kept out of every prompt.
struct ExclusionOptions {
  std::vector<std::string> patterns;  // exclude
  bool complete_excluded = true;      // completeExcludedFiles: local completions in an excluded document
  std::string user_file;              // the user's .waferignore (user_exclusion_file())
};

// Where completions come from: the local engine (or the scripted one) or a remote backend.
struct ModelOptions {
  std::string backend;      // backend: local, llama-server or openai
  std::string fake_engine;  // tests only: the scripted engine's script instead of a model
  EngineOptions engine;     // the local engine's (engine_options() of the settings)
  RemoteSettings remote;    // a remote backend's
};

struct ServiceOptions {
  SchedulingOptions scheduling;
  AlternativesOptions alternatives;
  IndexOptions index;
  ExclusionOptions exclusion;
  ModelOptions model;
  PromptOptions prompt;
  DocumentLimits documents;            // --max-open-documents, --max-document-mib
  bool open_buffers = false;           // openBuffers: the other open documents in the extra context
  std::vector<std::string> languages;  // languages: the enabled languageIds (empty: all)

  // Whether completion is enabled for a languageId.
  bool language_enabled(std::string_view language_id) const;
};

// The folders a client's workspace may be in: the --allow-root folders resolved; none given,
// the home folder with --listen, and any folder on stdio.
AllowedRoots allowed_roots(const Options& o);

// The options of each consumer, from the settings.
ServiceOptions service_options(const Options& o);
PromptOptions prompt_options(const Options& o);
RemoteSettings remote_settings(const Options& o);
// remote_options(remote_settings(o)).
Result<RemoteOptions> remote_options(const Options& o);

}  // namespace wafer
