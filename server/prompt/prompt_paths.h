// File names as the model sees them in repository-level prompts: a document URI turned
// into a path relative to the workspace root (percent-escapes decoded), and the
// workspace's name. Prompts should name files the way a repository does ("src/util.py"),
// not by absolute paths that differ between machines and say nothing about the project.
#pragma once

#include <string>
#include <string_view>

namespace wafer {

// "file:///home/u/proj/src/a%20b.py" -> "/home/u/proj/src/a b.py"; other schemes are
// returned unchanged (an untitled buffer keeps its URI as its name).
std::string path_from_uri(std::string_view uri);

// The document's path relative to the root ("" root: the whole path; outside the root:
// the whole path too).
std::string prompt_path(std::string_view root_uri, std::string_view document_uri);

// "/home/u/a b.py" -> "file:///home/u/a%20b.py": an absolute path (a relative one is made
// absolute first) as the file URI an editor sends.
std::string uri_from_path(std::string_view path);

// The repository holding a file: the nearest folder above it holding .git ("" when none).
std::string repository_of(std::string_view file);
// The workspace an editor would have open for a file: its repository, else its folder.
std::string workspace_root_of(std::string_view file);

// The last component of the root ("proj"), or "" when there is no root.
std::string repo_name_of(std::string_view root_uri);

}  // namespace wafer
