// `wafer info --workspace DIR`: what the content exclusion (server/index/exclusion.h) keeps
// out of prompts in a folder, each file or folder with the rule that excludes it and where
// the rule comes from, so a user can check the rules before a remote backend sees the code.
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "engine/base/path_utf8.h"
#include "server/cli/commands.h"
#include "server/index/exclusion.h"

namespace wafer {

int run_info_workspace(const Options& o) {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::absolute(path_from_utf8(o.workspace), ec);
  if (ec || !std::filesystem::is_directory(dir, ec)) {
    std::fprintf(stderr, "wafer info: --workspace: not a folder: %s\n", o.workspace.c_str());
    return kExitFailure;
  }
  const std::string root = utf8_from_path(dir.lexically_normal());
  const std::string user_file = user_exclusion_file();
  const std::string workspace_file = utf8_from_path(dir / path_from_utf8(std::string(kWaferIgnore)));
  const ExclusionRules rules = ExclusionRules::load(root, user_file, o.exclude);
  bool truncated = false;
  const std::vector<ExcludedPath> excluded = find_excluded(root, rules, 200000, &truncated);
  auto exists = [](const std::string& f) {
    std::error_code e;
    return !f.empty() && std::filesystem::is_regular_file(path_from_utf8(f), e);
  };
  if (o.json) {
    nlohmann::json j = {{"workspace", root},
                        {"user_file", user_file.empty() ? nlohmann::json() : nlohmann::json(user_file)},
                        {"user_file_found", exists(user_file)},
                        {"workspace_file", workspace_file},
                        {"workspace_file_found", exists(workspace_file)},
                        {"exclude", o.exclude},
                        {"truncated", truncated},
                        {"excluded", nlohmann::json::array()}};
    for (const ExcludedPath& p : excluded)
      j["excluded"].push_back({{"path", p.path + (p.is_dir ? "/" : "")},
                               {"source", to_string(p.why.source)},
                               {"pattern", p.why.pattern}});
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  std::printf("workspace     %s\n", root.c_str());
  std::printf("rules         built-in list; user %s (%s); workspace %s (%s); exclude setting: %zu pattern(s)\n",
              user_file.empty() ? "(no cache folder)" : user_file.c_str(), exists(user_file) ? "found" : "none",
              workspace_file.c_str(), exists(workspace_file) ? "found" : "none", o.exclude.size());
  std::printf("excluded      %zu file(s) and folder(s)%s\n", excluded.size(),
              truncated ? " (stopped after 200000 entries)" : "");
  for (const ExcludedPath& p : excluded)
    std::printf("  %s%s  (%s: %s)\n", p.path.c_str(), p.is_dir ? "/" : "", std::string(to_string(p.why.source)).c_str(),
                p.why.pattern.c_str());
  return kExitOk;
}

}  // namespace wafer
