// .gitignore rules, as git reads them, for walking a workspace: blank lines and # comments
// skipped, `!` re-includes, a trailing `/` matches directories only, a pattern with a `/`
// before its end is anchored to the .gitignore's folder (else it matches a name at any
// depth below it), and `*`, `?`, `[...]` and `**` glob as in git. Later rules win.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wafer {

// Whether `text` matches a git wildmatch `pattern`: `*` and `?` never match `/`, `**`
// between slashes (or at an end) matches any number of folders, `[...]` a class (`!` or
// `^` negates, `a-z` ranges), `\` escapes.
bool glob_match(std::string_view pattern, std::string_view text);

class IgnoreRules {
 public:
  // Adds the rules of a .gitignore found in folder `base` ("" for the root; relative to the
  // root, without a trailing slash).
  void add(std::string_view gitignore_text, std::string_view base = "");
  // Whether the path (relative to the root, '/'-separated) is ignored. A path inside an
  // ignored folder is for the caller to skip (git does not look inside one either).
  bool ignored(std::string_view path, bool is_dir) const;
  bool empty() const { return rules_.empty(); }

 private:
  struct Rule {
    std::string base;     // the .gitignore's folder
    std::string pattern;  // without the leading `!`, `/` and trailing `/`
    bool negate = false, dir_only = false, anchored = false;
  };
  std::vector<Rule> rules_;
};

}  // namespace wafer
