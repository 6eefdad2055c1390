// `wafer bench` target: any LSP server with textDocument/inlineCompletion, driven over
// pipes as VS Code drives it — initialize (offering UTF-8 and UTF-16 positions), open the
// document, incremental didChange per keystroke, inlineCompletion with triggerKind
// Automatic, $/cancelRequest for stale requests. Streamed partial results are asked for
// with a partialResultToken (wafer answers with $/progress). Server-to-client requests
// (e.g. window/workDoneProgress/create) get a null result so the server never waits.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "server/benchtool/bench_replay.h"

namespace wafer::bench {

struct LspTargetOptions {
  std::vector<std::string> argv;      // the server's command line
  std::string name;                   // shown in reports (default: the command line)
  bool stream = true;                 // send a partialResultToken
  nlohmann::json initialization_options;  // null: none
  double start_timeout_ms = 60000;    // for the initialize answer
};

std::unique_ptr<BenchTarget> make_lsp_target(LspTargetOptions options);

}  // namespace wafer::bench
