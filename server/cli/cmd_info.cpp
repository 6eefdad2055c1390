// `wafer info MODEL.gguf [--json] [--residency]`: describes a GGUF model (see
// server/cli/model_info.h); --residency adds the decode ceiling on this machine
// (server/cli/residency.h).
#include <cstdio>
#include <optional>

#include "engine/gguf/gguf.h"
#include "server/cli/commands.h"
#include "server/pull/model_catalog.h"
#include "server/cli/model_info.h"
#include "server/cli/residency.h"

namespace wafer {

int run_info(const Options& o) {
  std::string path = o.model;
  if (path.empty() && !o.positional.empty()) path = o.positional[0];
  if (path.empty() || o.positional.size() > (o.model.empty() ? 1u : 0u)) {
    std::fprintf(stderr, "wafer info: expected one MODEL.gguf (try 'wafer info --help')\n");
    return kExitUsage;
  }
  auto resolved = resolve_model_path(path, o.cache_dir);
  if (!resolved) {
    std::fprintf(stderr, "wafer info: %s\n", resolved.error().message.c_str());
    return kExitFailure;
  }
  path = *resolved;
  auto file = GgufFile::open(path);
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
  if (o.json) {
    nlohmann::json j = info_json(info);
    if (residency) j["residency"] = residency_json(*residency);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::fputs(info_text(info).c_str(), stdout);
    if (residency) std::fputs(residency_text(*residency).c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace wafer
