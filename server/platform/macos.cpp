// macOS: dyld's executable path, the Mach task's resident size, quality-of-service classes
// for background threads, ~/Library/Caches, pipe + fcntl (there is no pipe2).
#include <fcntl.h>
#include <mach-o/dyld.h>
#include <mach/mach.h>
#include <pthread.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "server/platform/platform.h"
#include "server/platform/posix_pipe.h"

namespace wafer::os {

std::filesystem::path executable_path() {
  char buf[PATH_MAX];
  uint32_t n = sizeof buf;
  if (_NSGetExecutablePath(buf, &n) != 0) return {};
  std::error_code ec;
  auto p = std::filesystem::canonical(buf, ec);  // dyld's path may hold symlinks and ".."
  return ec ? std::filesystem::path(buf) : p;
}

long resident_kib() {
  mach_task_basic_info info{};
  mach_msg_type_number_t count = MACH_TASK_BASIC_INFO_COUNT;
  if (task_info(mach_task_self(), MACH_TASK_BASIC_INFO, reinterpret_cast<task_info_t>(&info), &count) != KERN_SUCCESS)
    return -1;
  return static_cast<long>(info.resident_size / 1024);
}

void lower_thread_priority() {
  // The scheduler's class for work the user does not wait on (it also prefers the
  // efficiency cores for it).
  pthread_set_qos_class_self_np(QOS_CLASS_UTILITY, 0);
}

std::optional<std::filesystem::path> user_cache_dir(std::string& error) {
  const char* home = std::getenv("HOME");
  if (home && *home) return std::filesystem::path(home) / "Library" / "Caches";
  error = "no cache directory: set HOME, or pass --cache-dir";
  return std::nullopt;
}

// APFS and HFS+ volumes are case-insensitive unless formatted otherwise.
bool file_names_ignore_case() { return true; }

int pipe_cloexec(int fds[2]) {
  if (pipe(fds) != 0) return -1;
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  return 0;
}

}  // namespace wafer::os
