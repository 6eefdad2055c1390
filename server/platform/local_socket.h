// The file-system side of the daemon's local socket (`wafer lsp --listen`): the folder that
// holds it, closed to other users, and what is already at the socket's path. POSIX only in
// substance (local_socket_posix.cpp); on Windows the socket is a named pipe, which has no
// folder and no file (local_socket_windows.cpp).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace wafer::os {

// The name to bind. `requested` empty: the default, POSIX wafer/lsp.sock in $XDG_RUNTIME_DIR,
// else wafer/run/lsp.sock in the cache folder, its folder made (or made mode 0700) and
// checked to be the user's own; Windows \\.\pipe\wafer-lsp-USER. Else POSIX a path whose
// folder must exist, be a real folder (not a symbolic link) of the user's and be closed to
// others, and fit a socket address; Windows a pipe name (\\.\pipe\NAME). Nothing with the
// reason in `error` otherwise.
std::optional<std::string> local_socket_name(const std::string& requested, std::string& error);

enum class SocketState {
  kAbsent,    // nothing at the path
  kStale,     // a socket nobody listens on (its daemon died): safe to replace
  kLive,      // a socket some process listens on
  kNotSocket  // something else: never replaced
};
// What is at `path`; kNotSocket with the reason in `error` when it cannot be examined.
SocketState probe_local_socket(const std::filesystem::path& path, std::string& error);

// Sets a socket file's mode to 0600 (POSIX; nothing on Windows). False with the reason.
bool make_socket_private(const std::filesystem::path& path, std::string& error);

}  // namespace wafer::os
