// Linux: /proc for the executable and resident memory, per-thread nice values, the XDG
// cache folder, pipe2.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "server/platform/platform.h"
#include "server/platform/posix_pipe.h"

namespace wafer::os {

std::filesystem::path executable_path() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : p;
}

long resident_kib() {
  std::ifstream f("/proc/self/statm");
  long size = 0, resident = 0;
  if (!(f >> size >> resident)) return -1;
  static const long page_kib = sysconf(_SC_PAGESIZE) / 1024;
  return resident * page_kib;
}

void lower_thread_priority() {
  // Linux keeps a nice value per thread.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
}

std::optional<std::filesystem::path> user_cache_dir(std::string& error) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg == '/') return std::filesystem::path(xdg);  // the XDG spec: relative paths are invalid
  const char* home = std::getenv("HOME");
  if (home && *home) return std::filesystem::path(home) / ".cache";
  error = "no cache directory: set XDG_CACHE_HOME or HOME, or pass --cache-dir";
  return std::nullopt;
}

// Case-sensitive (ext4, xfs, btrfs; a case-folding folder is the exception).
bool file_names_ignore_case() { return false; }

int pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

}  // namespace wafer::os
