// The one place the consumers' options are filled from the settings (service_options.h).
#include "server/service/service_options.h"

#include <algorithm>

#include "server/config/options.h"
#include "server/config/settings_table.h"
#include "server/index/exclusion.h"
#include "server/platform/platform.h"

namespace wafer {

bool ServiceOptions::language_enabled(std::string_view language_id) const {
  return languages.empty() || std::find(languages.begin(), languages.end(), language_id) != languages.end();
}

PromptOptions prompt_options(const Options& o) {
  PromptOptions p;
  p.window.prefix_tokens = o.prefix_tokens;
  p.window.suffix_tokens = o.suffix_tokens;
  p.window.prefix_lines = o.prefix_lines;
  p.window.suffix_lines = o.suffix_lines;
  p.window.prefix_step_lines = o.prefix_step_lines;
  p.window.max_bytes = static_cast<size_t>(std::max(o.window_bytes, 1));
  p.extra_tokens = o.extra_tokens;
  p.recent_tokens = o.recent_tokens;
  p.max_tokens = o.max_tokens;
  return p;
}

RemoteSettings remote_settings(const Options& o) {
  RemoteSettings r;
  r.backend = o.backend;
  r.url = o.backend_url;
  r.model = o.backend_model;
  r.api_key_env = o.api_key_env;
  r.api_key_file = o.api_key_file;
  r.fim_format = o.fim_format;
  r.prompt_template = o.prompt_template;
  r.timeout_ms = o.backend_timeout_ms;
  return r;
}

Result<RemoteOptions> remote_options(const Options& o) { return remote_options(remote_settings(o)); }

AllowedRoots allowed_roots(const Options& o) {
  AllowedRoots a;
  if (o.listen.empty() && o.allow_roots.empty()) return a;
  a.limited = true;
  std::vector<std::string> folders = o.allow_roots;
  if (folders.empty() && !os::home_dir().empty()) folders.push_back(os::home_dir());
  // A bad folder is refused at start (`wafer lsp`); here it leaves nothing allowed.
  if (Result<std::vector<std::string>> r = resolve_allowed_roots(folders)) a.roots = std::move(*r);
  return a;
}

ServiceOptions service_options(const Options& o) {
  ServiceOptions s;
  s.scheduling.debounce_ms = o.debounce_ms;
  s.scheduling.latency_budget_ms = o.latency_budget_ms;
  s.scheduling.typing_budget = o.typing_budget;
  s.scheduling.early_prefill = o.early_prefill;
  s.scheduling.warm = o.warm;
  s.scheduling.ahead_tokens = o.ahead_tokens;
  s.scheduling.min_confidence = o.min_confidence;
  s.alternatives.count = o.alternatives;
  s.alternatives.temperature = o.alternatives_temperature;
  s.alternatives.top_p = o.alternatives_top_p;
  s.documents.max_documents = static_cast<size_t>(std::max(o.max_open_documents, 1));
  s.documents.max_total_bytes = static_cast<size_t>(std::max(o.max_document_mib, 1)) << 20;
  s.index.enabled = o.workspace_index;
  s.index.max_files = std::min(o.index_max_files, o.max_index_files);
  s.index.max_bytes = static_cast<size_t>(std::max(o.max_index_mib, 1)) << 20;
  s.index.allowed = allowed_roots(o);
  s.exclusion.patterns = o.exclude;
  s.exclusion.complete_excluded = o.complete_excluded_files;
  s.exclusion.user_file = user_exclusion_file();
  s.model.backend = o.backend;
  s.model.fake_engine = o.fake_engine;
  s.model.engine = engine_options(o);
  s.model.remote = remote_settings(o);
  s.prompt = prompt_options(o);
  s.open_buffers = o.open_buffers;
  s.languages = o.languages;
  return s;
}

}  // namespace wafer
