// The completion service: everything the daemon does between an editor's words and the
// engine, with no protocol in it (the way clangd's ClangdServer sits under its
// ClangdLSPServer). It keeps the open documents and their syntax trees, loads the model
// (or connects a remote backend), keeps the caches a keystroke draws on (definitions,
// the extra context chosen per document, the ring of recent edits, the workspace index,
// the typing-through cache and the typing rhythm), schedules the engine's work (requests,
// warm-up, early prefill, decoding ahead of the cursor, sampled alternatives) and counts
// what happens in its statistics.
//
// Front ends drive it with plain C++ values: `wafer lsp` (server/lsp/lsp_server.h maps
// JSON-RPC to these calls and the answers back to LSP results). Everything runs on the
// libuv loop thread that owns the service; answers come back on it, through the
// interfaces below, never from inside the call that asked (but for answers found in
// memory, which come before complete() returns).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <uv.h>

#include "server/document/text_types.h"
#include "server/document/workspace.h"
#include "server/index/exclusion.h"
#include "server/index/index_worker.h"
#include "server/prompt/context.h"
#include "server/prompt/extra_context.h"
#include "server/prompt/recent_chunks.h"
#include "server/prompt/typing_cache.h"
#include "server/pull/model_choice.h"
#include "server/service/completion_request.h"
#include "server/service/log.h"
#include "server/service/scheduler.h"
#include "server/service/service_options.h"
#include "server/service/stats.h"
#include "server/service/typing_rhythm.h"

namespace wafer {

struct CompletionState;
struct Postprocessed;

// How this system compares file names (case, separators): the keys of the open documents
// and of the workspace index's files.
FileNameRules native_file_name_rules();
class DocumentExtraContext;

// What the service tells its front end, besides answers: messages for the user, the
// model's loading, and a trace of each request when the front end asked for one.
class ServiceEvents {
 public:
  enum class Level { kError, kWarning, kInfo };
  virtual ~ServiceEvents() = default;
  // A message the user should see (an editor shows it as a notification).
  virtual void show(Level level, const std::string& message) = 0;
  // The model starts loading (`what` names it) / has finished (ok or not).
  virtual void model_loading(const std::string& what) = 0;
  virtual void model_loaded(bool ok) = 0;
  // One line per finished request, for clients that trace.
  virtual void trace(const std::string& line) = 0;
};

enum class Trigger { kInvoked, kAutomatic };

// What a completion is for: ghost text (may carry sampled alternatives when invoked) or
// one item of a completion list (clients without inline completion).
enum class CompletionKind { kInline, kListItem };

struct CompletionQuery {
  std::string uri;
  TextPosition position;  // in the position encoding set with set_position_encoding()
  Trigger trigger = Trigger::kAutomatic;
  CompletionKind kind = CompletionKind::kInline;
  bool stream = false;  // deliver the suggestion so far while it grows
};

// What an answer cost, for status lines and `wafer bench` (engine or backend answers).
struct CompletionCost {
  int tokens_reused = 0, tokens_prefilled = 0, tokens_generated = 0;
  double engine_ms = 0, debounce_ms = 0;
  std::optional<double> alternatives_ms;  // set when sampled alternatives were run
};

struct CompletionAnswer {
  enum class Outcome {
    kSuggestions,  // `suggestions` holds the answer (none, or empty text: nothing to show)
    kSuperseded,   // a newer request for the document replaced it: nothing to show
    kCancelled,    // cancel() or the service's close()
    kInvalid,      // the query could not be served (error says why); only for queries
                   // that waited for the model, the others fail in complete() itself
  };
  Outcome outcome = Outcome::kSuggestions;
  std::vector<std::string> suggestions;  // greedy first, then distinct alternatives
  TextPosition cursor;                   // the position the suggestions are for (clamped to its line)
  std::string served_by;                 // "typing" or "ahead" (from memory), "engine", or a backend's name
  std::optional<CompletionCost> cost;    // when the engine or a backend computed it
  std::string error;                     // kInvalid
  bool held_back = false;                // kSuggestions: none, the confidence gate held it back
};

// Where one request's answer goes. The service holds it until it calls answer(), exactly
// once; partial() only before that, and only for streaming queries.
class CompletionReceiver {
 public:
  virtual ~CompletionReceiver() = default;
  virtual void partial(const std::string& suggestion_so_far, const TextPosition& cursor) {
    (void)suggestion_so_far;
    (void)cursor;
  }
  virtual void answer(CompletionAnswer answer) = 0;
};

// The state the service reports for `wafer/stats`, besides its Stats.
struct ServiceStatus {
  size_t documents = 0;
  bool engine_busy = false;
  const ModelInfo* model = nullptr;  // null: none loaded
  std::optional<ModelChoice> model_choice;
  std::string backend;
  double min_confidence = 0;  // the confidence gate's threshold in force (gate_threshold())
  size_t typing_cache_entries = 0, definition_lists = 0, extra_context_choices = 0, edit_times = 0,
         waiting_for_model = 0;
  struct Index {
    bool enabled = false;
    std::string root;  // "" none
    bool built = false;
    WorkspaceIndex::Counts counts;
    double build_ms = 0;
    int64_t generation = 0;
  } index;
};

// The engine for a chosen model as the daemon loads it: `options` (whose draft_model_path
// is the draftModel setting) with the model's file and the draft resolve_draft_model picks.
// A draft the setting did not name (the catalogue's) that cannot load with the model is left
// out: the model loads alone and `draft.left_out` says why. `wafer complete` loads the same way.
struct DraftOutcome {
  std::string path;      // the draft tried ("" none)
  std::string left_out;  // why it was left out ("" it was not)
};
Result<std::unique_ptr<Engine>> load_chosen_engine(EngineOptions options, const ModelChoice& chosen,
                                                   DraftOutcome& draft);

class CompletionService {
 public:
  using RequestId = uint64_t;

  CompletionService(uv_loop_t* loop, ServiceOptions options, Logger& log, ServiceEvents& events);
  ~CompletionService();
  CompletionService(const CompletionService&) = delete;
  CompletionService& operator=(const CompletionService&) = delete;

  // Settings (service_options() of the daemon's). configure() reloads the model when
  // `reload` (the caller's engine_changed() of the settings: an engine or backend setting
  // changed).
  const ServiceOptions& options() const { return options_; }
  void configure(ServiceOptions next, bool reload);
  void set_position_encoding(PositionEncoding e) { encoding_ = e; }
  PositionEncoding position_encoding() const { return encoding_; }

  // The workspace root ("" none): names files in prompts, and is the folder indexed.
  void set_workspace_root(const std::string& root_uri) { root_uri_ = root_uri; }
  // Starts serving: loads the model, and indexes the workspace root (without one, the
  // repository of the first document opened).
  void start();
  // Models were added to or removed from the pull cache (an editor ran `wafer pull`): the
  // model is chosen again and, when the choice is another file, loaded in place of the
  // one serving. A model the settings name stays.
  void models_changed();
  // Stops the scheduler (cancelling jobs) and the index thread. Idempotent.
  void close();

  // Documents. change() refuses a change it cannot apply (the document is then out of
  // sync until its whole text comes again); close() is false for a document not open.
  // open() refuses a document past the limits (ServiceOptions::documents).
  Status open(const DocumentText& document);
  Status change(const std::string& uri, int64_t version, const std::vector<TextChange>& changes);
  bool close(const std::string& uri);
  // A file changed on disk (saved, created, deleted): the workspace index reads it again.
  void file_changed(const std::string& uri);
  // Text the user yanked or copied joins the recent edits: whole lines of an open document's
  // range, or a text (from `uri` if known). Errors name what was wrong with the range.
  Status yank_range(const std::string& uri, const TextRange& range);
  void yank_text(const std::string& uri, const std::string& text);

  // A completion at a position. Fails (and keeps nothing of `receiver`) when the document
  // is not open or the position is not in it; otherwise the receiver gets one answer.
  Result<RequestId> complete(const CompletionQuery& query, std::shared_ptr<CompletionReceiver> receiver);
  // Ends a request: the receiver gets kCancelled unless it was answered already.
  void cancel(RequestId id);
  // The editor shows the cursor at a position: prefills the prompt a completion there would
  // send, while the engine is idle (nothing is generated).
  Status warm(const std::string& uri, const TextPosition& position);
  // The editor showed a suggestion / the user accepted `accepted_length` characters of one.
  void shown();
  void partially_accepted(std::optional<uint64_t> accepted_length);

  // The confidence gate's threshold for automatic requests (0: off): the minConfidence
  // setting, or with `auto` the one the serving model's file carries, else
  // kDefaultMinConfidence.
  double gate_threshold() const;

  // Statistics and state for `wafer/stats`.
  const Stats& stats() const { return stats_; }
  ServiceStatus status() const;
  Scheduler& scheduler() { return *scheduler_; }

 private:
  friend class DocumentExtraContext;

  void note_yank(RecentChunks::Yank outcome, const std::string& uri);
  // service_model.cpp
  void load_model();
  void use_remote_backend();
  bool model_file_lost();
  void resume_waiting_for_model();
  // service_completion.cpp
  Result<RequestId> start_completion(const CompletionQuery& query, std::shared_ptr<CompletionReceiver> receiver,
                                     RequestId id);
  PreparedCompletion prepare(const std::string& uri, const Workspace::View& view, size_t offset);
  void on_greedy_done(const std::shared_ptr<CompletionState>& st, Scheduler::JobResult r);
  void answer(const std::shared_ptr<CompletionState>& st, CompletionAnswer a);
  CompletionAnswer suggestions_answer(const CompletionState& st) const;
  // PREFIX + "filter_" + NAME per filter that changed a suggestion ("", "ahead_", "alternative_").
  void count_filters(const Postprocessed& pp, const std::string& prefix = "");
  const std::vector<Definition>& definitions(const std::string& uri, const Workspace::View& view);
  // service_alternatives.cpp
  void run_alternative(const std::shared_ptr<CompletionState>& st, int index);
  void finish_alternatives(const std::shared_ptr<CompletionState>& st);
  // service_ahead.cpp
  static std::string ahead_key(const std::string& uri);  // the scheduler key of a document's ahead work
  void start_ahead(const std::shared_ptr<CompletionState>& st);
  // service_warm.cpp
  void prefill_early(const std::string& uri, const CompletionRequest& request, int64_t version);
  struct IdlePrefillStats {  // the stats names one kind of idle prefill counts under
    const char* started;
    const char* outcome_prefix;
    const char* ms;
    const char* tokens;
  };
  void submit_idle_prefill(const std::string& uri, int64_t version, CompletionRequest request,
                           const IdlePrefillStats& names);
  // After a request the draft model sat out (Timings::draft_behind): its cache catches up
  // with the request's prompt in idle time.
  void catch_up_draft(const CompletionState& st);
  void count_prefilled_parts(const Timings& t);
  // service_exclusion.cpp
  // Reads the exclusion rules again (a new root, setting or .waferignore) and decides anew
  // which open documents they exclude.
  void refresh_exclusion();
  // Whether the rules exclude an open document, and by which rule (null: not excluded).
  const Exclusion* excluded(const std::string& uri) const;
  // The same for any URI, open or not, from the rules themselves.
  std::optional<Exclusion> rules_exclude(const std::string& uri) const;
  // Whether an excluded document gets completions: from the local engine only, and only
  // with completeExcludedFiles.
  bool excluded_may_complete() const;
  // Decides whether the rules exclude an open document (on opening it).
  void note_exclusion(const std::string& uri);
  // service_index.cpp
  void start_index(const std::string& uri);
  // (Re)builds the index of index_root_ with the current rules (none: nothing to do).
  void build_index();
  std::vector<ExtraSource> index_sources(const std::vector<std::string>& names, std::string_view language);

  uv_loop_t* loop_;
  ServiceOptions options_;
  Logger& log_;
  ServiceEvents& events_;
  PositionEncoding encoding_ = PositionEncoding::kUtf16;
  Workspace workspace_{native_file_name_rules()};
  std::unique_ptr<Scheduler> scheduler_;
  Stats stats_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::string refused_root_;  // the last index root outside the allowed roots (logged once)
  bool limit_logged_ = false;  // the index's limit was logged
  std::string root_uri_;  // the workspace root: names files in prompts
  bool started_ = false;  // start() came: settings that change the engine reload it

  // The model: the load under way (a newer one supersedes it), the last failure (shown
  // once), the requests that came while it loaded (the latest per document: built once it
  // is loaded, since the prompt's budgets depend on the model), and the file that serves.
  int load_generation_ = 0;
  std::string last_model_error_;
  bool model_loading_ = false;
  struct WaitingForModel {
    RequestId id = 0;
    CompletionQuery query;
    std::shared_ptr<CompletionReceiver> receiver;
  };
  std::vector<WaitingForModel> waiting_for_model_;
  std::optional<ModelChoice> served_model_;
  std::string served_draft_;  // the draft model's file tried with the served model ("" none)
  std::string announced_model_;  // the path last announced to the user (once per model)
  uint64_t mapping_faults_seen_ = 0;

  // Requests being worked on, for cancel().
  RequestId next_request_ = 1;
  std::map<RequestId, std::weak_ptr<CompletionState>> requests_;

  // The workspace index: its thread, the root asked for, the latest snapshot (swapped in
  // by the thread's callback), how often it changed and how long the last build took.
  std::unique_ptr<IndexWorker> index_worker_;
  std::string index_root_;
  std::shared_ptr<const WorkspaceIndex> index_;
  int64_t index_generation_ = 0;
  double index_build_ms_ = 0;
  // Content exclusion: the rules (for the folder exclusion_root_) and the open documents
  // they exclude. An excluded document's text never joins another prompt or the recent
  // edits, and it is never sent to a remote backend.
  std::shared_ptr<const ExclusionRules> exclusion_ = std::make_shared<const ExclusionRules>();
  std::string exclusion_root_;
  std::map<std::string, Exclusion, std::less<>> excluded_documents_;
  // The typing rhythm per document (typing_rhythm.h): the debounce counts from the last
  // keystroke, so a client that waited before asking does not wait twice, and an automatic
  // request's first-token budget follows the gaps between keystrokes. Like every
  // per-document map below, it holds at most one entry per open document: close() erases it.
  std::map<std::string, TypingRhythm, std::less<>> rhythm_;
  // The places recently edited (prompt/recent_chunks.h): at most 8 chunks over all documents.
  RecentChunks recent_;
  // The last suggestion per document, for typing-through.
  TypingCache typing_;
  // Definitions per document and the version they were found in (extra context).
  struct Definitions {
    int64_t version = -1;
    std::vector<Definition> list;
  };
  std::map<std::string, Definitions, std::less<>> definitions_;
  // The extra context last chosen per document, and what it was chosen for: it is kept
  // while the window starts at the same place (and the other documents are unchanged), so
  // the prompt's start stays the same and the engine's cache holds it.
  struct ExtraChoice {
    size_t window_begin = 0;
    int budget_tokens = 0;
    std::vector<std::pair<std::string, int64_t>> others;  // the other documents used, and their versions
    std::vector<ContextFile> chunks;
  };
  std::map<std::string, ExtraChoice, std::less<>> extra_choice_;
};

}  // namespace wafer
