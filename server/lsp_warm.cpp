// LspServer's warm-up (`wafer/warm`, a notification): the editor says where the cursor is
// when a document is shown or the cursor lands somewhere new, and while the engine is idle
// it prefills the prompt a completion at that position would send, generating nothing. The
// first request there then finds its prompt in the document's cache and prefills only what
// changed (the first suggestion after opening a file otherwise prefills the whole window:
// ~1,500 tokens, seconds on a laptop CPU). Background work: any request or keystroke ends it
// within one layer of the forward pass, and what it had prefilled stays cached.
#include <algorithm>

#include "server/lsp_server.h"
#include "server/settings.h"

namespace wafer {

void LspServer::on_warm(const nlohmann::json& params) {
  auto p = lsp::parse_params<lsp::CompletionParams>(params);
  const std::string& uri = p.text_document.uri;
  std::optional<Workspace::View> view = workspace_.get(uri);
  if (!view) throw jsonrpc::InvalidParams("textDocument.uri: the document is not open: " + uri);
  Result<size_t> offset = offset_at(*view->snapshot, p.position, encoding_);
  if (!offset) throw jsonrpc::InvalidParams("position: " + offset.error().message);
  // Only the in-process engine keeps a cache this could fill.
  if (!options_.warm || view->out_of_sync || !language_enabled(options_, view->snapshot->language_id) ||
      scheduler_->served_by() != "engine" || !scheduler_->model_info()) {
    stats_.count("warm_skipped");
    return;
  }
  FimWindow window;
  FimContext ctx = completion_context(uri, *view, *offset, window);
  Scheduler::Job job;
  // One key for all documents: only the latest resting place is worth the engine's time
  // (flipping through buffers must not queue a warm-up per buffer).
  job.key = "warm";
  job.background = true;
  job.request = std::move(ctx.request);
  job.request.prefill_only = true;
  const int64_t version = view->snapshot->version;
  job.still_current = [this, uri, version] { return workspace_.version(uri) == version; };
  job.on_done = [this](Scheduler::JobResult r) {
    stats_.count(std::string("warm_outcome_") + to_string(r.outcome));
    if (r.outcome != Scheduler::Outcome::kDone) return;
    stats_.record("warm_ms", r.engine_ms);
    stats_.count("warm_prefilled_tokens", static_cast<uint64_t>(std::max(0, r.timings.tokens_prefilled)));
  };
  stats_.count("warm_started");
  scheduler_->submit(std::move(job));
}

}  // namespace wafer
