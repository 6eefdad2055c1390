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
  struct Rule {
    std::string base;     // the .gitignore's folder
    std::string pattern;  // without the leading `!`, `/` and trailing `/`
    std::string line;     // as written (for saying which rule decided)
    int origin = 0;       // the caller's tag of the text the rule came from
    bool negate = false, dir_only = false, anchored = false;
  };

  // Adds the rules of a .gitignore found in folder `base` ("" for the root; relative to the
  // root, without a trailing slash); `origin` tags them.
  void add(std::string_view gitignore_text, std::string_view base = "", int origin = 0);
  // Whether the path (relative to the root, '/'-separated) is ignored. A path inside an
  // ignored folder is for the caller to skip (git does not look inside one either).
  bool ignored(std::string_view path, bool is_dir) const;
  // The rule that decides the path (the last one matching it; a `!` rule re-includes), or
  // null when none matches.
  const Rule* deciding(std::string_view path, bool is_dir) const;
  bool empty() const { return rules_.empty(); }

 private:
  std::vector<Rule> rules_;
};

}  // namespace wafer
