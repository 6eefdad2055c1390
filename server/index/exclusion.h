// Content exclusion: the files whose text must never reach a prompt (the workspace index,
// extra context, a remote backend), because they hold secrets (keys, tokens, passwords).
// The rules are gitignore patterns (index/gitignore.h) from four places:
//
//   1. the built-in list of secret-bearing files (builtin_exclusions());
//   2. the user's own .waferignore (user_exclusion_file(): wafer's folder in the user's
//      cache folder, beside the pulled models);
//   3. the `exclude` setting, one pattern per item;
//   4. the .waferignore at the workspace root.
//
// 1-3 are one list, later rules winning, so the user's `!pattern` re-includes a file the
// built-in list excludes. The workspace's .waferignore (a file a cloned repository may
// ship) only adds exclusions: its `!` lines re-include only what its own lines excluded.
// A path inside an excluded folder is excluded.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/index/gitignore.h"

namespace wafer {

enum class ExclusionSource { kBuiltIn, kUserFile, kSetting, kWorkspaceFile };
// "built-in", "user .waferignore", "exclude setting", "workspace .waferignore".
std::string_view to_string(ExclusionSource source);

// Why a path is excluded: the rule (as written) and where it came from.
struct Exclusion {
  ExclusionSource source = ExclusionSource::kBuiltIn;
  std::string pattern;
  std::string folder;  // the excluded folder the path lies in ("" the path itself matched)
};

// The built-in patterns, in gitignore syntax (one a line, with # comments).
std::string_view builtin_exclusions();

// The user's own .waferignore ("" when the user has no cache folder).
std::string user_exclusion_file();

// The file names whose change needs the rules read again.
inline constexpr std::string_view kWaferIgnore = ".waferignore";

class ExclusionRules {
 public:
  // The built-in list alone.
  ExclusionRules();
  // The four sources, as texts (the files' contents; "" for a missing file).
  ExclusionRules(std::string_view user_text, const std::vector<std::string>& setting, std::string_view workspace_text);
  // Reads the user's file and `root`/.waferignore (root "": none); a file that cannot be
  // read counts as empty.
  static ExclusionRules load(const std::string& root, const std::string& user_file,
                             const std::vector<std::string>& setting);

  // Whether the path ('/'-separated, relative to the root; for a file outside the root its
  // absolute path without the leading '/' or drive) is excluded, and by which rule.
  std::optional<Exclusion> excluded(std::string_view path, bool is_dir = false) const;

 private:
  std::optional<Exclusion> decide(const IgnoreRules& rules, std::string_view path, bool is_dir) const;

  IgnoreRules own_;        // built-in, the user's file, the setting
  IgnoreRules workspace_;  // the workspace's .waferignore
};

// A file or folder under a root that the rules exclude, and why.
struct ExcludedPath {
  std::string path;  // relative to the root, '/'-separated
  bool is_dir = false;
  Exclusion why;
};

// What the rules exclude under `root` (an absolute folder), in path order: not looking
// inside an excluded folder or `.git`, nor following symlinked folders, and stopping after
// max_entries entries looked at (*truncated then set). Whatever .gitignore says: an editor
// may open an ignored file too.
std::vector<ExcludedPath> find_excluded(const std::string& root, const ExclusionRules& rules,
                                        size_t max_entries = 200000, bool* truncated = nullptr);

}  // namespace wafer
