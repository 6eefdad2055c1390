// The key an open document or an indexed file is kept under, so that two names of one file
// find one entry. Editors do not agree on how to write a file URI: VS Code sends
// "file:///c%3A/Users/a.py" where another client sends "file:///C:/Users/a.py", and where the
// file system ignores case (Windows, macOS by default) "A.py" and "a.py" are one file. The
// key is for lookups only: documents keep the URI the client sent, and answers use it.
#pragma once

#include <string>
#include <string_view>

namespace wafer {

// How file names compare on an OS; the service fills it from server/platform.
struct FileNameRules {
  bool fold_case = false;               // "A.py" and "a.py" name one file
  bool backslash_is_separator = false;  // Windows: "src\\a.py" is "src/a.py"
};

// A document URI's key: for file URIs the percent-escapes decoded ("%3A" -> ':'), the host
// and the drive letter in lower case, and by the rules backslashes made '/' and the letters
// folded; any other URI ("untitled:1") is its own key.
std::string document_key(std::string_view uri, const FileNameRules& rules);
// A file path's key (the workspace index's paths, relative to its root), by the same rules.
std::string file_key(std::string_view path, const FileNameRules& rules);
// `s` with its letters in lower case: ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic
// (the scripts whose simple case pairs file systems fold alike); other bytes unchanged.
std::string fold_case(std::string_view s);

}  // namespace wafer
