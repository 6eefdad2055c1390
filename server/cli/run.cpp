#include "server/cli/run.h"

#include <cstdio>
#include <string>
#include <vector>

#include "engine/base/version.h"
#include "server/cli/commands.h"
#include "server/config/options.h"
#include "server/platform/platform.h"

namespace wafer {

int wafer_main(int argc, char** argv) {
  os::binary_stdio();
  std::vector<std::string> args = os::utf8_arguments(argc, argv);
  std::vector<char*> ptrs;
  for (auto& a : args) ptrs.push_back(a.data());
  ptrs.push_back(nullptr);
  return run_wafer(static_cast<int>(args.size()), ptrs.data());
}

int run_wafer(int argc, char** argv) {
  Result<Options> parsed = parse_options(argc, argv);
  if (!parsed) {
    std::fprintf(stderr, "wafer: %s\n", parsed.error().message.c_str());
    return kExitUsage;
  }
  const Options& o = *parsed;
  if (o.version) {
    std::printf("%s\n", build_description().c_str());
    return kExitOk;
  }
  if (o.help || o.command.empty()) {
    std::fputs(usage(o.command).c_str(), o.command.empty() && !o.help ? stderr : stdout);
    return o.help ? kExitOk : kExitUsage;
  }
  if (o.command == "lsp") return run_lsp(o);
  if (o.command == "complete") return run_complete(o);
  if (o.command == "tokenize") return run_tokenize(o);
  if (o.command == "generate") return run_generate(o);
  if (o.command == "info") return run_info(o);
  if (o.command == "bench") return run_bench(o);
  if (o.command == "pull") return run_pull(o);
  return not_implemented(o.command.c_str());
}

}  // namespace wafer
