#include "bench/latency/daemon_prompts.h"

#include <optional>
#include <vector>

#include "grammars/registry.h"
#include "server/config/options.h"
#include "server/service/completion_request.h"
#include "server/service/service_options.h"
#include "server/prompt/extra_context.h"
#include "server/prompt/prompt_paths.h"
#include "server/document/workspace.h"

namespace wafer::bench {

struct DaemonPrompts::State {
  Options options;
  ModelInfo model;
  std::string uri, root_uri, language = "plaintext";
  Workspace workspace;
  int64_t version = 0;
  // The extra context kept at a window start (the daemon's keep_extra).
  size_t kept_begin = static_cast<size_t>(-1);
  int kept_budget = -1;
  std::vector<ContextFile> kept;
};

DaemonPrompts::DaemonPrompts(const std::string& path, const ModelInfo& model, int max_tokens, int latency_budget_ms)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.options.max_tokens = max_tokens;
  if (latency_budget_ms >= 0) s.options.latency_budget_ms = latency_budget_ms;
  s.model = model;
  s.uri = uri_from_path(path);
  s.root_uri = uri_from_path(workspace_root_of(path));
  if (const grammars::Language* language = grammars::language_by_path(path)) s.language = std::string(language->name);
}

DaemonPrompts::~DaemonPrompts() = default;

CompletionRequest DaemonPrompts::request(const std::string& text, size_t cursor) {
  State& s = *state_;
  // The whole text as a new version (a full-text didChange): the tree is parsed afresh,
  // which costs the benchmark a little time outside the engine and changes nothing in
  // the prompt.
  (void)s.workspace.open({s.uri, s.language, ++s.version, text});  // no limits set: it cannot fail
  const std::optional<Workspace::View> view = s.workspace.get(s.uri);
  // The document's own definitions, and the extra context kept while the window stays
  // put, as the service keeps it.
  struct Extra final : ExtraContextSource {
    State* s = nullptr;
    const Workspace::View* view = nullptr;
    std::vector<Definition> definitions;
    const std::vector<Definition>* own_definitions() override {
      if (const grammars::LanguageRules* rules = grammars::language_rules(s->language))
        definitions = find_definitions(*view->snapshot, view->tree.get(), *rules);
      return &definitions;
    }
    std::vector<ContextFile> keep(size_t begin, int budget, const ChooseExtra& choose) override {
      if (begin != s->kept_begin || budget != s->kept_budget) {
        s->kept = choose();
        s->kept_begin = begin;
        s->kept_budget = budget;
      }
      return s->kept;
    }
  } extra;
  extra.s = &s;
  extra.view = &*view;
  CompletionSite site;
  const PromptOptions prompt = prompt_options(s.options);
  site.options = &prompt;
  site.model = &s.model;
  site.root_uri = s.root_uri;
  site.uri = s.uri;
  site.view = &*view;
  site.offset = cursor;
  site.extra = &extra;
  CompletionRequest request = prepare_completion(site).request;  // session_key: the document's URI
  request.first_token_budget_ms = s.options.latency_budget_ms;    // as for an automatic request
  return request;
}

}  // namespace wafer::bench
