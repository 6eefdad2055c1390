// The folders a listening daemon's client may name as its workspace (`--allow-root`), so
// that a client cannot make the daemon index, and so read into prompts, files of the user's
// it was not meant to see. Paths are compared after resolving symbolic links and `..`, so
// a link inside an allowed folder that points out of it leads out of it.
#pragma once

#include <string>
#include <vector>

#include "engine/base/result.h"

namespace wafer {

struct AllowedRoots {
  bool limited = false;            // false: any folder (stdio: the editor's own daemon)
  std::vector<std::string> roots;  // resolved absolute folders, never a file system root
};

// Resolves each folder; an error for one that is relative or resolves to a file system
// root (`/`, `C:\`): the whole disk is never an allowed root.
Result<std::vector<std::string>> resolve_allowed_roots(const std::vector<std::string>& folders);

// Ok when `path` (absolute) resolves to an allowed root or a folder below one, or nothing is
// limited; else an error that names the path.
Status check_allowed_root(const AllowedRoots& allowed, const std::string& path);
// The same for a folder's URI, as a client names it; a URI that is not file: is refused
// when the roots are limited.
Status check_allowed_root_uri(const AllowedRoots& allowed, const std::string& uri);

}  // namespace wafer
