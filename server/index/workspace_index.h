// The workspace index: the definitions (prompt/extra_context.h: functions, classes,
// methods, types, constants, found with tree-sitter) of every file of a bundled language
// under the workspace root, including the files not open in the editor, so a prompt can
// show the definitions of names used near the cursor wherever they live.
//
// An index is an immutable snapshot: built on a worker thread (WorkspaceIndex::build),
// then swapped in whole; a changed file gives a new snapshot sharing every other file's
// entry (with_file). The walk follows .gitignore files (index/gitignore.h), skips .git and
// the files the content exclusion names (index/exclusion.h: secrets never enter it), and
// keeps to the limits below: a file larger than max_file_bytes is left out, and once the
// index holds max_files files or max_total_bytes of source no file is added (the walk goes
// on, reading nothing, to count the files left out; with_file adds none either).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/document/document_key.h"
#include "server/index/exclusion.h"
#include "server/prompt/extra_context.h"

namespace wafer {

struct IndexLimits {
  size_t max_files = 5000;                // files indexed
  size_t max_file_bytes = 256 * 1024;     // a larger file is left out (generated code, data)
  size_t max_total_bytes = 64u << 20;     // source read in all
  size_t max_entries = 200000;            // folder entries looked at (a root such as $HOME)
  int threads = 0;                        // parsing threads (0: one per CPU; they inherit the caller's nice value)
  FileNameRules names;                    // how paths compare (file_key): "A.py" is "a.py" where case is ignored
  std::shared_ptr<const ExclusionRules> exclusion;  // files never read (null: the built-in list)
};

struct IndexedFile {
  std::string path;      // relative to the root, '/'-separated
  std::string language;  // grammars::Language::name
  size_t source_bytes = 0;
  std::vector<Definition> definitions;
};

class WorkspaceIndex {
 public:
  struct Counts {
    size_t files = 0, definitions = 0;
    size_t bytes = 0;             // memory held by the entries (estimate)
    size_t ignored = 0;           // files and folders left out by .gitignore
    size_t excluded = 0;          // files and folders left out by the content exclusion
    size_t too_large = 0;         // files over max_file_bytes
    size_t source_bytes = 0;      // the indexed files' text
    size_t limit_skipped = 0;     // files left out at max_files, max_total_bytes or max_entries
    bool truncated = false;       // a limit left files out (or ended the walk at max_entries)
  };

  // Walks root (an absolute folder path) and indexes what it finds; stops early, with
  // what it has, when *cancel becomes true.
  static std::shared_ptr<const WorkspaceIndex> build(const std::string& root, const IndexLimits& limits,
                                                     const std::atomic<bool>* cancel = nullptr);
  // The file's definitions read from disk (nullptr when it is not a file of a bundled
  // language, is excluded, cannot be read or is over the size limit).
  static std::shared_ptr<const IndexedFile> index_file(const std::string& root, const std::string& relative,
                                                       const IndexLimits& limits);
  // This index with one file's entry replaced, added (file) or removed (nullptr). A new file
  // that would pass max_files or max_total_bytes is not added, and counted in limit_skipped.
  std::shared_ptr<const WorkspaceIndex> with_file(const std::string& relative, std::shared_ptr<const IndexedFile> file,
                                                  const IndexLimits& limits) const;

  // The files defining any of `names`, of a language whose definitions help `language`
  // (related(a, b)), except the paths in `skip` (sorted file_keys under the index's rules;
  // the documents the caller has open), sorted by path. The sources point into this index: keep it alive while using them.
  template <class Related>
  std::vector<ExtraSource> sources_for(const std::vector<std::string>& names, std::string_view language,
                                       const std::vector<std::string>& skip, Related related) const;

  const std::string& root() const { return root_; }
  const FileNameRules& names() const { return names_; }
  const Counts& counts() const { return counts_; }
  const std::vector<std::shared_ptr<const IndexedFile>>& files() const { return files_; }

 private:
  void finish();  // sorts the files, builds the name map and the counts
  std::vector<size_t> files_defining(const std::vector<std::string>& names) const;

  std::string root_;
  FileNameRules names_;
  std::vector<std::shared_ptr<const IndexedFile>> files_;  // sorted by path
  std::unordered_multimap<std::string, size_t> by_name_;   // definition name -> file
  Counts counts_;
};

template <class Related>
std::vector<ExtraSource> WorkspaceIndex::sources_for(const std::vector<std::string>& names, std::string_view language,
                                                     const std::vector<std::string>& skip, Related related) const {
  std::vector<ExtraSource> out;
  for (size_t i : files_defining(names)) {
    const IndexedFile& f = *files_[i];
    if (!related(f.language, language)) continue;
    if (std::binary_search(skip.begin(), skip.end(), file_key(f.path, names_))) continue;
    out.push_back({f.path, &f.definitions, 0, 0, false});
  }
  return out;
}

}  // namespace wafer
