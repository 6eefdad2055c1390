#include "server/cli/listen_socket.h"

#include <filesystem>
#include <system_error>

#include "engine/base/path_utf8.h"
#include "server/config/options.h"
#include "server/platform/local_socket.h"

namespace wafer {

bool listens_on_local_socket(std::string_view listen) {
  return listen == kListenLocal || listen.find('/') != std::string_view::npos ||
         listen.find('\\') != std::string_view::npos;
}

Result<std::string> prepare_listen_socket(const std::string& listen) {
  std::string error;
  std::optional<std::string> name = os::local_socket_name(listen == kListenLocal ? "" : listen, error);
  if (!name) return make_error("--listen: " + error);
  const std::filesystem::path path = path_from_utf8(*name);
  switch (os::probe_local_socket(path, error)) {
    case os::SocketState::kAbsent:
      break;
    case os::SocketState::kStale: {
      std::error_code ec;
      if (!std::filesystem::remove(path, ec) && ec)
        return make_error("--listen: cannot remove the stale socket " + *name + ": " + ec.message());
      break;
    }
    case os::SocketState::kLive:
      return make_error("--listen: another daemon listens on " + *name + " (stop it, or pass another --listen PATH)");
    case os::SocketState::kNotSocket:
      return make_error("--listen: " + error);
  }
  return *name;
}

}  // namespace wafer
