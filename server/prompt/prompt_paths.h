// File names as the model sees them in repository-level prompts: a document URI turned
// into a path relative to the workspace root (percent-escapes decoded), and the
// workspace's name. Prompts should name files the way a repository does ("src/util.py"),
// not by absolute paths that differ between machines and say nothing about the project.
#pragma once

#include <string>
#include <string_view>

namespace wafer {

// The path rules of an OS. Windows: drive letters ("C:\\x", sent as "file:///c%3A/x" by VS
// Code), backslashes, UNC shares ("file://server/share" <-> "\\\\server\\share"), and names
// that differ only in case are the same file. The functions take the style so that both
// rule sets are tested on every OS.
enum class PathStyle { kPosix, kWindows };
// This build's OS.
PathStyle native_path_style();

// "file:///home/u/proj/src/a%20b.py" -> "/home/u/proj/src/a b.py"; Windows:
// "file:///c%3A/Users/u/a.py" -> "c:\\Users\\u\\a.py". Other schemes are returned unchanged (an
// untitled buffer keeps its URI as its name).
std::string path_from_uri(std::string_view uri, PathStyle style);
std::string path_from_uri(std::string_view uri);

// The document's path relative to the root, with '/' between folders as a repository names
// files ("" root: the whole path; outside the root: the whole path too). Windows: the root
// matches whatever the case of its letters.
std::string prompt_path(std::string_view root_uri, std::string_view document_uri, PathStyle style);
std::string prompt_path(std::string_view root_uri, std::string_view document_uri);

// `path` relative to the folder `root`, with '/' between folders; "" when it is not below
// it (Windows: whatever the case of the letters, either separator).
std::string path_below(std::string_view root, std::string_view path, PathStyle style);

// Whether two paths name the same file by the style's rules (no file system access):
// Windows ignores case and takes '/' for '\\'.
bool same_path(std::string_view a, std::string_view b, PathStyle style);

// An absolute path as the file URI an editor sends: "/home/u/a b.py" ->
// "file:///home/u/a%20b.py"; Windows "C:\\u\\a.py" -> "file:///c%3A/u/a.py". The native form
// makes a relative path absolute first.
std::string uri_from_absolute_path(std::string_view path, PathStyle style);
std::string uri_from_path(std::string_view path);

// The repository holding a file: the nearest folder above it holding .git ("" when none).
std::string repository_of(std::string_view file);
// The workspace an editor would have open for a file: its repository, else its folder.
std::string workspace_root_of(std::string_view file);

// The last component of the root ("proj"), or "" when there is no root.
std::string repo_name_of(std::string_view root_uri);

}  // namespace wafer
