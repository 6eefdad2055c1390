// The service's model: loading it on the engine thread (the setting, else the most capable
// pulled model, else the bundled one), a remote backend instead when one is set, the
// requests that wait for a load, and a mapped model file that changed under us.
#include <chrono>

#include "server/backends/remote_backend.h"
#include "server/service/completion_service.h"
#include "server/service/scripted_engine.h"

namespace wafer {

void CompletionService::use_remote_backend() {
  Result<RemoteOptions> ro = remote_options(options_.model.remote);
  if (!ro) {
    events_.show(ServiceEvents::Level::kError, "wafer: cannot use the remote backend: " + ro.error().message);
    return;
  }
  // The backend reports transitions only (first failure, another failure, recovery), so the
  // editor hears about a server that is down once, not per keystroke.
  auto backend = std::make_shared<RemoteBackend>(
      loop_, std::move(*ro), [this, alive = alive_](bool ok, const std::string& message) {
        if (!*alive) return;
        if (ok) {
          stats_.count("backend_recovered");
          log_.info(message);
          return;
        }
        stats_.count("backend_problems");
        events_.show(ServiceEvents::Level::kError, "wafer: " + options_.model.backend + ": " + message +
                                                       ". Completions are off until it answers; retrying with backoff.");
      });
  log_.info("completions from " + backend->name() + " at " + backend->endpoint());
  scheduler_->set_backend(std::move(backend));
}

void CompletionService::resume_waiting_for_model() {
  std::vector<WaitingForModel> waiting = std::move(waiting_for_model_);
  waiting_for_model_.clear();
  for (WaitingForModel& w : waiting) {
    Result<RequestId> started = start_completion(w.query, w.receiver, w.id);
    if (!started) {  // e.g. the document was closed meanwhile
      CompletionAnswer a;
      a.outcome = CompletionAnswer::Outcome::kInvalid;
      a.error = started.error().message;
      w.receiver->answer(std::move(a));
    }
  }
}

Result<std::unique_ptr<Engine>> load_chosen_engine(EngineOptions options, const ModelChoice& chosen,
                                                   DraftOutcome& draft) {
  Result<std::string> path = resolve_draft_model(options.draft_model_path, chosen, default_model_search());
  if (!path) return make_error("the draft model: " + path.error().message);
  const bool automatic = options.draft_model_path.empty();
  options.model_path = chosen.path;
  options.draft_model_path = draft.path = *path;
  Result<std::unique_ptr<Engine>> r = load_engine(options);
  if (!r && automatic && !draft.path.empty()) {
    // The draft came with the catalogue model, not from a setting: load without it (when
    // the model alone fails too, that is the error to report).
    const std::string why = r.error().message;
    options.draft_model_path.clear();
    r = load_engine(options);
    if (r) draft.left_out = "the draft model " + draft.path + " is left out: " + why;
  }
  return r;
}

void CompletionService::load_model() {
  int generation = ++load_generation_;
  scheduler_->set_engine(nullptr);
  scheduler_->set_backend(nullptr);
  model_loading_ = false;
  if (options_.model.backend != "local") return use_remote_backend();
  served_model_.reset();
  const ModelOptions& m = options_.model;
  std::string what = !m.fake_engine.empty()        ? "fake engine " + m.fake_engine
                     : m.engine.model_path.empty() ? std::string("the default model")
                                                   : m.engine.model_path;
  events_.model_loading(what);
  using Loaded = std::optional<Result<std::shared_ptr<Engine>>>;
  auto loaded = std::make_shared<Loaded>();
  auto choice = std::make_shared<std::optional<ModelChoice>>();
  // The draft model's file, and why the one the catalogue pairs with the model was left out
  // (load_chosen_engine).
  auto draft_path = std::make_shared<std::string>();
  auto draft_error = std::make_shared<std::string>();
  EngineOptions eo = options_.model.engine;
  std::string fake = options_.model.fake_engine;
  auto t0 = std::chrono::steady_clock::now();
  model_loading_ = true;
  scheduler_->run_on_engine_thread(
      [loaded, choice, draft_path, draft_error, eo, fake] {
        if (!fake.empty()) {
          loaded->emplace(make_scripted_engine(fake));
          return;
        }
        // The setting (a path, or a catalogue name meaning the cached download), else the
        // most capable pulled model, else the bundled one (server/pull/model_choice.h).
        Result<ModelChoice> chosen = choose_model(eo.model_path, default_model_search());
        if (!chosen) {
          loaded->emplace(chosen.error());
          return;
        }
        *choice = *chosen;
        DraftOutcome draft;
        Result<std::unique_ptr<Engine>> r = load_chosen_engine(eo, *chosen, draft);
        *draft_path = draft.path;  // tried once per choice, loaded or not
        *draft_error = draft.left_out;
        if (r) loaded->emplace(std::shared_ptr<Engine>(std::move(r).value()));
        else loaded->emplace(r.error());
      },
      [this, loaded, choice, draft_path, draft_error, generation, what, t0, alive = alive_] {
        if (!*alive || generation != load_generation_) return;
        model_loading_ = false;
        std::string error;
        if (!loaded->has_value() || !**loaded) {
          error = loaded->has_value() ? (*loaded)->error().message : "unknown error";
        } else if (!(**loaded).value()->info().has_fim) {
          error = "model '" + (**loaded).value()->info().name +
                  "' has no fill-in-the-middle tokens; inline completion needs a FIM code model "
                  "(e.g. Qwen2.5-Coder)";
        }
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        events_.model_loaded(error.empty());
        if (!error.empty()) {
          stats_.count("model_load_errors");
          if (error != last_model_error_)
            events_.show(ServiceEvents::Level::kError, "wafer: cannot use the model: " + error);
          last_model_error_ = error;
          resume_waiting_for_model();
          return;
        }
        last_model_error_.clear();
        const std::shared_ptr<Engine>& engine = (**loaded).value();
        scheduler_->set_engine(engine);
        resume_waiting_for_model();
        stats_.record("model_load_ms", ms);
        log_.info("model loaded: " + (*choice ? (*choice)->path : what) + " (" + std::to_string(static_cast<int>(ms)) +
                  " ms)");
        served_model_ = *choice;
        served_draft_ = *draft_path;
        if (!draft_error->empty()) {
          log_.warn(*draft_error);
          events_.show(ServiceEvents::Level::kWarning, "wafer: " + *draft_error);
        }
        if (const std::string& d = engine->info().draft_model; !d.empty()) log_.info("draft model: " + d);
        // Which model serves, once per model: users who set none learn what they got and,
        // with the bundled one, how to get a better one.
        if (served_model_ && served_model_->path != announced_model_) {
          announced_model_ = served_model_->path;
          const std::string line = "completions from " + describe_choice(*served_model_, engine->info().name);
          log_.info(line);
          events_.show(ServiceEvents::Level::kInfo, "wafer: " + line);
        }
        if (const std::string& k = engine->info().kernels; !k.empty()) log_.info(k);
        if (const std::string& kv = engine->info().kv_cache; !kv.empty()) log_.info(kv);
        // --mlock: where the weights are; a refusal does not stop completions, but the user asked.
        if (const std::string& lock = engine->info().memory_lock; !lock.empty()) {
          log_.info(lock);
          if (lock.starts_with("cannot")) events_.show(ServiceEvents::Level::kWarning, "wafer: " + lock);
        }
      });
}

void CompletionService::models_changed() {
  if (!started_ || options_.model.backend != "local" || !options_.model.fake_engine.empty()) return;
  Result<ModelChoice> chosen = choose_model(options_.model.engine.model_path, default_model_search());
  // The same model with the same draft (one pulled since joins it): nothing to do.
  if (chosen && served_model_ && chosen->path == served_model_->path) {
    Result<std::string> draft = resolve_draft_model(options_.model.engine.draft_model_path, *chosen, default_model_search());
    if (!draft || *draft == served_draft_) return;
  }
  log_.info("the models changed: choosing the model again");
  load_model();
}

bool CompletionService::model_file_lost() {
  uint64_t faults = mapped_file_faults();
  if (faults == mapping_faults_seen_) return false;
  mapping_faults_seen_ = faults;
  stats_.count("model_file_lost");
  log_.error("the model file changed on disk while in use (truncated or replaced): the answer computed from it "
             "is dropped and the model is loaded again");
  load_model();
  return true;
}

}  // namespace wafer
