#include "server/index/exclusion.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/base/path_utf8.h"
#include "server/platform/platform.h"

namespace wafer {
namespace {

// Files that commonly hold secrets. Kept to names that rarely hold anything else: a
// false positive costs a file's definitions in prompts, which `!pattern` in the user's
// .waferignore or the `exclude` setting gives back.
constexpr std::string_view kBuiltIn = R"(# Environment files (their templates stay)
.env
.env.*
!.env.example
!.env.sample
!.env.template
.envrc
# Private keys, certificates with keys, keystores
*.pem
*.key
*.p12
*.pfx
*.jks
*.keystore
id_rsa*
id_dsa*
id_ecdsa*
id_ed25519*
!*.pub
# Tokens and passwords of package managers, git and other tools
.npmrc
.pypirc
.netrc
_netrc
.git-credentials
.htpasswd
*.kdbx
credentials.json
client_secret*.json
service-account*.json
# Folders of credentials
.aws/
.ssh/
.gnupg/
**/.docker/config.json
kubeconfig
**/.kube/config
# Infrastructure state and variables
*.tfstate
*.tfstate.*
*.tfvars
secrets.yaml
secrets.yml
)";

enum Origin : int { kBuiltInOrigin, kUserOrigin, kSettingOrigin, kWorkspaceOrigin };

ExclusionSource source_of(int origin) {
  switch (origin) {
    case kUserOrigin: return ExclusionSource::kUserFile;
    case kSettingOrigin: return ExclusionSource::kSetting;
    case kWorkspaceOrigin: return ExclusionSource::kWorkspaceFile;
    default: return ExclusionSource::kBuiltIn;
  }
}

std::string read_text(const std::string& path) {
  if (path.empty()) return "";
  std::ifstream in(path_from_utf8(path), std::ios::binary);
  if (!in) return "";
  std::ostringstream ss;
  ss << in.rdbuf();
  return std::move(ss).str();
}

}  // namespace

std::string_view to_string(ExclusionSource source) {
  switch (source) {
    case ExclusionSource::kBuiltIn: return "built-in";
    case ExclusionSource::kUserFile: return "user .waferignore";
    case ExclusionSource::kSetting: return "exclude setting";
    case ExclusionSource::kWorkspaceFile: return "workspace .waferignore";
  }
  return "";
}

std::string_view builtin_exclusions() { return kBuiltIn; }

std::string user_exclusion_file() {
  std::string error;
  std::optional<std::filesystem::path> cache = os::user_cache_dir(error);
  if (!cache) return "";
  return utf8_from_path(*cache / "wafer" / path_from_utf8(std::string(kWaferIgnore)));
}

ExclusionRules::ExclusionRules() { own_.add(kBuiltIn, "", kBuiltInOrigin); }

ExclusionRules::ExclusionRules(std::string_view user_text, const std::vector<std::string>& setting,
                               std::string_view workspace_text)
    : ExclusionRules() {
  own_.add(user_text, "", kUserOrigin);
  for (const std::string& pattern : setting) own_.add(pattern, "", kSettingOrigin);
  workspace_.add(workspace_text, "", kWorkspaceOrigin);
}

ExclusionRules ExclusionRules::load(const std::string& root, const std::string& user_file,
                                    const std::vector<std::string>& setting) {
  const std::string workspace_file = root.empty() ? "" : root + "/" + std::string(kWaferIgnore);
  return ExclusionRules(read_text(user_file), setting, read_text(workspace_file));
}

std::optional<Exclusion> ExclusionRules::decide(const IgnoreRules& rules, std::string_view path, bool is_dir) const {
  // Each folder on the way first: nothing inside an excluded folder comes back.
  for (size_t slash = path.find('/'); slash != std::string_view::npos; slash = path.find('/', slash + 1)) {
    const std::string_view folder = path.substr(0, slash);
    if (folder.empty()) continue;
    if (const IgnoreRules::Rule* r = rules.deciding(folder, true); r && !r->negate)
      return Exclusion{source_of(r->origin), r->line, std::string(folder)};
  }
  if (const IgnoreRules::Rule* r = rules.deciding(path, is_dir); r && !r->negate)
    return Exclusion{source_of(r->origin), r->line, ""};
  return std::nullopt;
}

std::optional<Exclusion> ExclusionRules::excluded(std::string_view path, bool is_dir) const {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  if (path.empty()) return std::nullopt;
  if (std::optional<Exclusion> e = decide(own_, path, is_dir)) return e;
  return decide(workspace_, path, is_dir);
}

std::vector<ExcludedPath> find_excluded(const std::string& root, const ExclusionRules& rules, size_t max_entries,
                                        bool* truncated) {
  namespace fs = std::filesystem;
  std::vector<ExcludedPath> out;
  if (truncated) *truncated = false;
  std::error_code ec;
  fs::recursive_directory_iterator it(path_from_utf8(root), fs::directory_options::skip_permission_denied, ec);
  size_t entries = 0;
  for (const fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
    if (++entries > max_entries) {
      if (truncated) *truncated = true;
      break;
    }
    std::string relative = utf8_from_path(it->path().lexically_relative(path_from_utf8(root)));
    std::replace(relative.begin(), relative.end(), static_cast<char>(fs::path::preferred_separator), '/');
    std::error_code tec;
    const bool is_dir = it->is_directory(tec) && !it->is_symlink(tec);
    if (is_dir && it->path().filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    std::optional<Exclusion> why = rules.excluded(relative, is_dir);
    if (!why) continue;
    if (is_dir) it.disable_recursion_pending();
    out.push_back({relative, is_dir, std::move(*why)});
  }
  std::sort(out.begin(), out.end(), [](const ExcludedPath& a, const ExcludedPath& b) { return a.path < b.path; });
  return out;
}

}  // namespace wafer
