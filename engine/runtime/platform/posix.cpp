// What Linux and macOS share: memory mappings, locking, the SIGBUS handler, page size.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/runtime/platform.h"

namespace wafer::platform {
namespace {

std::string mib(uint64_t bytes) { return std::to_string((bytes + (uint64_t{1} << 19)) >> 20) + " MiB"; }

std::string memlock_limit_text() {
  rlimit r{};
  if (getrlimit(RLIMIT_MEMLOCK, &r) != 0) return "";
  if (r.rlim_cur == RLIM_INFINITY) return " (RLIMIT_MEMLOCK is unlimited)";
  return " (RLIMIT_MEMLOCK is " + mib(r.rlim_cur) +
         "; raise it with `ulimit -l`, LimitMEMLOCK= in a systemd unit, or /etc/security/limits.conf)";
}

bool (*g_fault_handler)(uintptr_t) = nullptr;

void on_sigbus(int sig, siginfo_t* info, void*) {
  if (g_fault_handler && g_fault_handler(reinterpret_cast<uintptr_t>(info->si_addr))) return;
  // Not ours (or the repair failed): the default action, as without the handler.
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

size_t page_size() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

void* map_pages(size_t bytes, size_t align) {
  if (bytes == 0) bytes = 1;
  // Over-map by `align` and trim both ends, so the start is aligned.
  void* raw = mmap(nullptr, bytes + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto base = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (base + align - 1) / align * align;
  const size_t len = (bytes + page_size() - 1) / page_size() * page_size();
  if (aligned > base) munmap(raw, aligned - base);
  const size_t tail = base + bytes + align - (aligned + len);
  if (tail) munmap(reinterpret_cast<void*>(aligned + len), tail);
  return reinterpret_cast<void*>(aligned);
}

void unmap_pages(void* p, size_t bytes) {
  if (p) munmap(p, bytes == 0 ? 1 : bytes);
}

bool lock_pages(const void* p, size_t bytes, std::string& error) {
  if (mlock(p, bytes) == 0) return true;
  error = std::string(std::strerror(errno)) + memlock_limit_text();
  return false;
}

void unlock_pages(const void* p, size_t bytes) { munlock(p, bytes); }

bool map_file(const std::filesystem::path& path, FileView& view, std::string& error) {
  // O_NONBLOCK: a path naming a FIFO (a client can name any path as its model) must give
  // "not a regular file" below, not block the engine thread in open() forever.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    error = std::strerror(errno);
    ::close(fd);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    error = "not a regular file";
    return false;
  }
  view = {};
  const auto size = static_cast<size_t>(st.st_size);
  if (size > 0) {
    void* addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (addr == MAP_FAILED) {
      error = std::string("mmap: ") + std::strerror(errno);
      ::close(fd);
      return false;
    }
    view = {addr, size};
  }
  ::close(fd);
  return true;
}

void release_file_pages(const void* p, size_t bytes) {
  const uintptr_t page = static_cast<uintptr_t>(page_size());
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(page - 1);
  // A read-only private file mapping has no pages of its own to lose: MADV_DONTNEED only
  // unmaps them from this process.
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

void unmap_file(const FileView& view) {
  if (view.data) ::munmap(const_cast<void*>(view.data), view.bytes);
}

void install_mapping_fault_handler(bool (*handler)(uintptr_t)) {
  if (g_fault_handler) return;
  g_fault_handler = handler;
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGBUS, &sa, nullptr);
}

bool replace_with_zero_pages(uintptr_t begin, size_t bytes) {
  // mmap is a plain system call, safe in a signal handler in practice.
  void* r = ::mmap(reinterpret_cast<void*>(begin), bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  return r != MAP_FAILED;
}

}  // namespace wafer::platform
