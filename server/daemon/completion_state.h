// What one completion request carries from its greedy engine run to the work that follows
// it (the sampled alternatives, lsp_alternatives.cpp; decoding ahead of the cursor after
// the reply, lsp_ahead.cpp): the document as it was asked about, the cursor facts, the
// greedy request and the reply that is still to be sent.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "server/daemon/alternatives.h"
#include "server/prompt/context.h"
#include "server/lsp/jsonrpc.h"
#include "server/daemon/scheduler.h"
#include "server/prompt/stop_rules.h"
#include "server/prompt/syntax.h"

namespace wafer {

struct CompletionState {
  std::string uri;
  int64_t version = 0;
  lsp::Position cursor;
  bool inline_kind = true;
  bool alternatives = false;  // sampled alternatives follow the greedy run
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
  Scheduler::Provider provider = Scheduler::Provider::kLocalEngine;
  std::string served_by;  // the provider's name, as reported
  std::shared_ptr<jsonrpc::Reply> reply;
  Scheduler::JobId current_job = 0;  // the job a $/cancelRequest cancels
  SuggestionSet suggestions;         // greedy first, then the alternatives
  nlohmann::json result;             // the reply, items filled in when it is sent
  double alternatives_ms = 0;        // engine time of the alternatives
};

}  // namespace wafer
