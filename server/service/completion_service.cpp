// The service's lifecycle, settings, documents, recent edits and status. Completions are
// in service_completion.cpp, the model in service_model.cpp.
#include "server/service/completion_service.h"

#include <chrono>

#include "engine/engine.h"
#include "server/prompt/confidence_gate.h"

namespace wafer {

CompletionService::CompletionService(uv_loop_t* loop, ServiceOptions options, Logger& log, ServiceEvents& events)
    : loop_(loop),
      options_(std::move(options)),
      log_(log),
      events_(events),
      scheduler_(std::make_unique<Scheduler>(loop)),
      mapping_faults_seen_(mapped_file_faults()) {
  workspace_.set_limits(options_.documents);
  recent_.set_snapshot_of([this](const std::string& uri) -> std::shared_ptr<const Snapshot> {
    if (excluded(uri)) return nullptr;
    std::optional<Workspace::View> v = workspace_.get(uri);
    return v ? v->snapshot : nullptr;
  });
}

CompletionService::~CompletionService() {
  close();
  *alive_ = false;
}

void CompletionService::close() {
  if (index_worker_) index_worker_->close();
  if (scheduler_) scheduler_->close();
}

void CompletionService::configure(ServiceOptions next, bool reload) {
  const bool exclusion_changed = next.exclusion.patterns != options_.exclusion.patterns ||
                                 next.exclusion.user_file != options_.exclusion.user_file;
  options_ = std::move(next);
  workspace_.set_limits(options_.documents);
  if (exclusion_changed) {
    refresh_exclusion();
    build_index();
  }
  if (reload && started_) load_model();
}

void CompletionService::start() {
  started_ = true;
  refresh_exclusion();
  load_model();
  if (!root_uri_.empty()) start_index(root_uri_);
}

Status CompletionService::open(const DocumentText& document) {
  if (Status st = workspace_.open(document); !st) {
    stats_.count("documents_refused");
    log_.error(st.error().message);
    return st;
  }
  note_exclusion(document.uri);
  rhythm_[document.uri].keystroke(std::chrono::steady_clock::now(), /*opening=*/true);
  stats_.count("documents_opened");
  if (excluded(document.uri)) stats_.count("excluded_documents_opened");
  if (root_uri_.empty() && index_root_.empty()) start_index(document.uri);
  return {};
}

Status CompletionService::change(const std::string& uri, int64_t version, const std::vector<TextChange>& changes) {
  auto t0 = std::chrono::steady_clock::now();
  if (Status st = workspace_.change(uri, version, changes, encoding_); !st) {
    stats_.count("change_errors");
    log_.error(st.error().message + " (" + uri + "); completions for it are off until the client sends the whole text again");
    return st;
  }
  stats_.count("changes");
  if (stats_.counter("changes") % kReleaseHeapEvery == 0) release_free_heap();
  // The document moved on: what was being decoded ahead of the old cursor is moot, and the
  // engine must be free for the request that follows the keystroke.
  scheduler_->supersede(ahead_key(uri));
  rhythm_[uri].keystroke(t0);
  // The line of the first ranged change joins the recent edits (a whole-text change says
  // nothing about a place).
  if (options_.prompt.recent_tokens > 0 && !excluded(uri))
    for (const TextChange& c : changes) {
      if (!c.range) continue;
      if (std::optional<Workspace::View> v = workspace_.get(uri)) recent_.edited(*v->snapshot, c.range->start.line);
      break;
    }
  stats_.record("did_change_ms", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  return {};
}

bool CompletionService::close(const std::string& uri) {
  rhythm_.erase(uri);
  typing_.forget(uri);
  scheduler_->supersede(ahead_key(uri));
  definitions_.erase(uri);
  extra_choice_.erase(uri);
  excluded_documents_.erase(uri);
  const bool was_open = workspace_.close(uri);
  if (!was_open) log_.warn("didClose for a document that is not open: " + uri);
  file_changed(uri);  // the index has its text from disk again
  return was_open;
}

Status CompletionService::yank_range(const std::string& uri, const TextRange& r) {
  stats_.count("yanks");
  if (options_.prompt.recent_tokens <= 0) {
    log_.debug("wafer/yank ignored: recentTokens is 0");
    return {};
  }
  std::optional<Workspace::View> v = workspace_.get(uri);
  if (!v) {
    log_.warn("wafer/yank ignored: the document is not open: " + uri);
    return {};
  }
  if (excluded(uri)) {
    log_.debug("wafer/yank ignored: the document is excluded from prompts");
    return {};
  }
  Result<size_t> begin = offset_at(*v->snapshot, r.start, encoding_);
  Result<size_t> end = offset_at(*v->snapshot, r.end, encoding_);
  if (!begin || !end || *end < *begin) {
    log_.warn("wafer/yank ignored: the range is not in " + uri + ": " +
              (!begin ? begin.error().message : !end ? end.error().message : std::string("it ends before it starts")));
    return {};
  }
  // Whole lines; an end at the start of a line closes the line before it.
  size_t last = static_cast<size_t>(r.end.line);
  if (r.end.character == 0 && r.end.line > r.start.line) --last;
  const RecentChunks::Yank outcome = recent_.yanked_lines(*v->snapshot, static_cast<size_t>(r.start.line), last);
  note_yank(outcome, uri);
  return {};
}

void CompletionService::yank_text(const std::string& uri, const std::string& text) {
  stats_.count("yanks");
  if (options_.prompt.recent_tokens <= 0) {
    log_.debug("wafer/yank ignored: recentTokens is 0");
    return;
  }
  if (rules_exclude(uri)) {
    log_.debug("wafer/yank ignored: the document is excluded from prompts");
    return;
  }
  note_yank(recent_.yanked_text(uri, text), uri);
}

// What a user does every day (yank a blank line, a long block, the same lines again) is
// logged at debug level; a range the client got wrong is a warning.
void CompletionService::note_yank(RecentChunks::Yank outcome, const std::string& uri) {
  switch (outcome) {
    case RecentChunks::Yank::kAdded: stats_.count("yanks_added"); break;
    case RecentChunks::Yank::kAlreadyThere: log_.debug("wafer/yank: the text is in the ring already"); break;
    case RecentChunks::Yank::kBlank: log_.debug("wafer/yank ignored: whitespace only"); break;
    case RecentChunks::Yank::kTooLong:
      log_.debug("wafer/yank ignored: over " + std::to_string(RecentChunks::kMaxBytes) + " bytes in its first " +
                 std::to_string(RecentChunks::kMaxLines) + " lines");
      break;
    case RecentChunks::Yank::kOutside: log_.warn("wafer/yank ignored: the range is not in " + uri); break;
  }
}

void CompletionService::shown() { stats_.count("shown"); }

void CompletionService::partially_accepted(std::optional<uint64_t> accepted_length) {
  stats_.count("partially_accepted");
  if (accepted_length) stats_.count("accepted_length", *accepted_length);
}

double CompletionService::gate_threshold() const {
  return wafer::gate_threshold(options_.scheduling.min_confidence, scheduler_->model_info());
}

ServiceStatus CompletionService::status() const {
  ServiceStatus s;
  s.documents = workspace_.size();
  s.engine_busy = scheduler_->engine_busy();
  s.model = scheduler_->model_info();
  if (s.model) s.model_choice = served_model_;
  s.backend = options_.model.backend;
  s.min_confidence = gate_threshold();
  s.typing_cache_entries = typing_.size();
  s.definition_lists = definitions_.size();
  s.extra_context_choices = extra_choice_.size();
  s.edit_times = rhythm_.size();
  s.waiting_for_model = waiting_for_model_.size();
  s.index.enabled = options_.index.enabled;
  s.index.generation = index_generation_;
  s.index.build_ms = index_build_ms_;
  if (index_) {
    s.index.built = true;
    s.index.root = index_->root();
    s.index.counts = index_->counts();
  } else {
    s.index.root = index_root_;
  }
  return s;
}

}  // namespace wafer
