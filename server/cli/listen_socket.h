// Where a listening daemon's local socket goes (`wafer lsp --listen [PATH]`): a
// Unix-domain socket in a folder only the user can enter, or a Windows named pipe.
#pragma once

#include <string>
#include <string_view>

#include "engine/base/result.h"

namespace wafer {

// Whether --listen's value names a local socket (alone, or a path with a '/' or '\') rather
// than a TCP address.
bool listens_on_local_socket(std::string_view listen);

// The socket's name for --listen's value, ready to bind. POSIX: alone, wafer/lsp.sock in
// $XDG_RUNTIME_DIR, else wafer/run/lsp.sock in the cache folder (that folder made, or made
// mode 0700); a PATH's folder must exist, be the user's and be closed to others. A stale
// socket (its daemon died) is removed; a live one is an error (its daemon keeps it).
// Windows: alone, \\.\pipe\wafer-lsp-USER; a PATH must be a pipe name (\\.\pipe\...).
Result<std::string> prepare_listen_socket(const std::string& listen);

}  // namespace wafer
