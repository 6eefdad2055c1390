// `wafer info MODEL.gguf [--json]`: describes a GGUF model (see server/model_info.h).
#include <cstdio>

#include "engine/gguf.h"
#include "server/commands.h"
#include "server/model_info.h"

namespace wafer {

int run_info(const Options& o) {
  std::string path = o.model;
  if (path.empty() && !o.positional.empty()) path = o.positional[0];
  if (path.empty() || o.positional.size() > (o.model.empty() ? 1u : 0u)) {
    std::fprintf(stderr, "wafer info: expected one MODEL.gguf (try 'wafer info --help')\n");
    return kExitUsage;
  }
  auto file = GgufFile::open(path);
  if (!file) {
    std::fprintf(stderr, "wafer info: %s\n", file.error().message.c_str());
    return kExitFailure;
  }
  ModelInfo info = describe_model(*file, path);
  if (o.json) std::printf("%s\n", info_json(info).dump(2).c_str());
  else std::fputs(info_text(info).c_str(), stdout);
  return kExitOk;
}

}  // namespace wafer
