// bench_index: the workspace index (server/index/workspace_index.h) of a folder, built as
// the daemon builds it: files indexed, definitions, memory the entries hold (estimate and
// the process's resident growth), and the time, plus one lookup's time.
//
//   bench_index [--max-files N] FOLDER   (e.g. /usr/lib/python3.11 or /usr/include)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "server/index/workspace_index.h"

using namespace wafer;

namespace {

long rss_kib() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  IndexLimits limits;
  std::string root;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--max-files" && i + 1 < argc) limits.max_files = static_cast<size_t>(std::atol(argv[++i]));
    else root = a;
  }
  if (root.empty()) {
    std::fprintf(stderr, "usage: bench_index [--max-files N] FOLDER\n");
    return 2;
  }
  const long rss0 = rss_kib();
  const auto t0 = std::chrono::steady_clock::now();
  auto index = WorkspaceIndex::build(root, limits);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const long rss1 = rss_kib();
  const auto& c = index->counts();
  std::printf("%s: %zu files, %zu definitions in %.0f ms (%.0f files/s); entries ~%zu KiB, resident +%ld KiB; "
              "%zu ignored, %zu over the size limit%s\n",
              root.c_str(), c.files, c.definitions, ms, c.files / (ms / 1000), c.bytes / 1024, rss1 - rss0, c.ignored,
              c.too_large, c.truncated ? "; stopped at a limit" : "");
  const auto t1 = std::chrono::steady_clock::now();
  size_t found = 0;
  for (int i = 0; i < 100; ++i)
    found += index->sources_for({"init", "main", "size", "read", "open", "parse", "value"}, "python", {},
                                [](std::string_view, std::string_view) { return true; })
                 .size();
  std::printf("lookup of 7 names: %.3f ms (%zu files each)\n",
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count() / 100, found / 100);
  return 0;
}
