#include <cstdlib>
#include <system_error>

#include "server/platform/local_socket.h"

namespace wafer::os {

// A named pipe lives in the pipe namespace, not in a folder; its name is all there is.
std::optional<std::string> local_socket_name(const std::string& requested, std::string& error) {
  if (requested.empty()) {
    const char* user = std::getenv("USERNAME");
    return std::string("\\\\.\\pipe\\wafer-lsp-") + (user && *user ? user : "user");
  }
  if (!requested.starts_with("\\\\.\\pipe\\")) {
    error = "on Windows a local socket is a named pipe (\\\\.\\pipe\\NAME), got '" + requested + "'";
    return std::nullopt;
  }
  return requested;
}

// libuv creates the pipe with FILE_FLAG_FIRST_PIPE_INSTANCE: a name in use (a live daemon,
// or another user's pipe) makes the bind fail, so nothing needs removing first.
SocketState probe_local_socket(const std::filesystem::path&, std::string&) { return SocketState::kAbsent; }

bool make_socket_private(const std::filesystem::path&, std::string&) { return true; }

}  // namespace wafer::os
