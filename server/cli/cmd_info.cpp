// `wafer info [MODEL.gguf|NAME] [--json] [--residency]`: describes a GGUF model, by default
// the one the daemon would serve (server/pull/model_choice.h), and says why it is the one (see
// server/cli/model_info.h); --residency adds the decode ceiling on this machine
// (server/cli/residency.h). `wafer info --workspace DIR` lists what the content exclusion
// keeps out of prompts there instead (info_exclusion.cpp).
#include <cstdio>
#include <optional>

#include "engine/base/path_utf8.h"
#include "engine/gguf/gguf.h"
#include "server/cli/commands.h"
#include "server/pull/model_choice.h"
#include "server/cli/model_info.h"
#include "server/cli/residency.h"

namespace wafer {

int run_info(const Options& o) {
  if (!o.workspace.empty()) return run_info_workspace(o);
  std::string path = o.model;
  if (path.empty() && !o.positional.empty()) path = o.positional[0];
  if (o.positional.size() > (o.model.empty() ? 1u : 0u)) {
    std::fprintf(stderr, "wafer info: expected at most one MODEL.gguf (try 'wafer info --help')\n");
    return kExitUsage;
  }
  // No model named: the one `wafer lsp` and `wafer complete` would use.
  auto chosen = choose_model(path, default_model_search(o.cache_dir));
  if (!chosen) {
    std::fprintf(stderr, "wafer info: %s\n", chosen.error().message.c_str());
    return kExitFailure;
  }
  path = chosen->path;
  auto file = GgufFile::open(path_from_utf8(path));
  if (!file) {
    std::fprintf(stderr, "wafer info: %s\n", file.error().message.c_str());
    return kExitFailure;
  }
  ModelReport info = describe_model(*file, path);
  std::optional<Residency> residency;
  if (o.residency) {
    auto r = measure_residency(*file, o.threads);
    if (!r) {
      std::fprintf(stderr, "wafer info: %s\n", r.error().message.c_str());
      return kExitFailure;
    }
    residency = *r;
  }
  // Why this model: the setting, the best pulled one, or the bundled one.
  const std::string source = std::string(to_string(chosen->source)) +
                             (chosen->source == ModelSource::kBundled
                                  ? "; for much better suggestions run: wafer pull " + suggested_pull()
                                  : "");
  if (o.json) {
    nlohmann::json j = info_json(info);
    j["source"] = to_string(chosen->source);
    if (residency) j["residency"] = residency_json(*residency);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::fputs(info_text(info).c_str(), stdout);
    std::printf("%-14s%s\n", "source", source.c_str());
    if (residency) std::fputs(residency_text(*residency).c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace wafer
