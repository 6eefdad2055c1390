#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "server/platform/local_socket.h"
#include "server/platform/platform.h"

namespace wafer::os {

namespace {

// Checks that `dir` is a real folder (not a symbolic link) owned by this user and closed to
// others. With `tighten` (wafer's own folder), it is made first if missing (mode 0700) and
// made mode 0700 if others may enter it; without (the user's folder), either is an error.
bool make_private_dir(const std::filesystem::path& dir, bool tighten, std::string& error) {
  std::error_code ec;
  if (tighten && dir.has_parent_path()) std::filesystem::create_directories(dir.parent_path(), ec);
  if (tighten && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    error = "cannot make the folder " + dir.string() + ": " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    error = "cannot examine " + dir.string() + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    error = dir.string() + " is not a folder (a symbolic link is not accepted)";
    return false;
  }
  if (st.st_uid != ::geteuid()) {
    error = "the folder " + dir.string() + " belongs to another user";
    return false;
  }
  if ((st.st_mode & 077) != 0) {
    if (!tighten) {
      error = "other users may enter the folder " + dir.string() + "; use a folder only you can enter (chmod 700)";
      return false;
    }
    if (::chmod(dir.c_str(), 0700) != 0) {
      error = "cannot make " + dir.string() + " private: " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> local_socket_name(const std::string& requested, std::string& error) {
  std::filesystem::path path;
  if (requested.empty()) {
    std::filesystem::path dir;
    if (const char* run = std::getenv("XDG_RUNTIME_DIR"); run && *run) {
      dir = std::filesystem::path(run) / "wafer";
    } else {
      std::optional<std::filesystem::path> cache = user_cache_dir(error);
      if (!cache) return std::nullopt;
      dir = *cache / "wafer" / "run";
    }
    if (!make_private_dir(dir, /*tighten=*/true, error)) return std::nullopt;
    path = dir / "lsp.sock";
  } else {
    std::error_code ec;
    path = std::filesystem::absolute(requested, ec).lexically_normal();
    if (ec || !path.has_filename()) {
      error = "not a socket path: '" + requested + "'";
      return std::nullopt;
    }
    if (!make_private_dir(path.parent_path(), /*tighten=*/false, error)) return std::nullopt;
  }
  const std::string name = path.string();
  if (name.size() >= sizeof(sockaddr_un{}.sun_path)) {
    error = "the socket path " + name + " is longer than " + std::to_string(sizeof(sockaddr_un{}.sun_path) - 1) +
            " bytes; pass a shorter --listen PATH";
    return std::nullopt;
  }
  return name;
}

SocketState probe_local_socket(const std::filesystem::path& path, std::string& error) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return SocketState::kAbsent;
    error = "cannot examine " + path.string() + ": " + std::strerror(errno);
    return SocketState::kNotSocket;
  }
  if (!S_ISSOCK(st.st_mode)) {
    error = path.string() + " exists and is not a socket";
    return SocketState::kNotSocket;
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string name = path.string();
  if (name.size() >= sizeof addr.sun_path) {
    error = "the socket path " + name + " is too long";
    return SocketState::kNotSocket;
  }
  std::memcpy(addr.sun_path, name.c_str(), name.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) {
    error = std::string("cannot make a socket: ") + std::strerror(errno);
    return SocketState::kNotSocket;
  }
  // A local connect answers at once: accepted (queued) by a listener, or refused.
  const int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  const int err = errno;
  ::close(fd);
  if (rc == 0 || err == EAGAIN) return SocketState::kLive;
  if (err == ECONNREFUSED) return SocketState::kStale;
  error = "cannot probe the socket " + name + ": " + std::strerror(err);
  return SocketState::kNotSocket;
}

bool make_socket_private(const std::filesystem::path& path, std::string& error) {
  if (::chmod(path.c_str(), 0600) == 0) return true;
  error = "cannot set the mode of " + path.string() + ": " + std::strerror(errno);
  return false;
}

}  // namespace wafer::os
