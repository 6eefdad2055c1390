// What one completion request carries from its greedy engine run to the work that follows
// it (the sampled alternatives, service_alternatives.cpp; decoding ahead of the cursor after
// the answer, service_ahead.cpp): the document as it was asked about, the cursor facts, the
// greedy request and the receiver of the answer that is still to come.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "engine/engine.h"
#include "server/document/syntax.h"
#include "server/prompt/context.h"
#include "server/prompt/stop_rules.h"
#include "server/service/alternatives.h"
#include "server/service/completion_service.h"
#include "server/service/scheduler.h"

namespace wafer {

struct CompletionState {
  CompletionService::RequestId id = 0;
  std::string uri;
  int64_t version = 0;
  TextPosition cursor;
  bool inline_kind = true;
  bool alternatives = false;  // sampled alternatives follow the greedy run
  bool gated = false;         // an automatic request: the confidence gate applies
  bool streamed = false;      // a partial suggestion went to the receiver
  std::chrono::steady_clock::time_point t0;  // when the request arrived
  std::shared_ptr<const Snapshot> snapshot;  // the text asked about
  size_t offset = 0;                         // the cursor in it, in bytes
  const grammars::Language* language = nullptr;
  SharedTree tree;
  std::shared_ptr<const CursorFacts> facts;
  Mode mode = Mode::kSingleLine;
  FimWindow window;           // the context budgets the request was built with
  std::string shown;          // the greedy suggestion (what typing-through remembers)
  CompletionRequest request;  // the greedy request, without streaming and cancel flag
  bool draft_behind = false;  // the draft model sat the greedy run out (Timings::draft_behind)
  Scheduler::Provider provider = Scheduler::Provider::kLocalEngine;
  std::string served_by;  // the provider's name, as reported
  std::shared_ptr<CompletionReceiver> receiver;
  bool answered = false;
  Scheduler::JobId current_job = 0;    // the job cancel() ends
  SuggestionSet suggestions;           // greedy first, then the alternatives
  std::optional<CompletionCost> cost;  // the greedy run's
  double alternatives_ms = 0;          // engine time of the alternatives
};

}  // namespace wafer
