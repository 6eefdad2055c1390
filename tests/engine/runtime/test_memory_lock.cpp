// lock_in_ram: pages locked and counted once, and a refusal that names the limit to raise.
#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <sys/resource.h>
#if defined(__linux__)
#include <linux/capability.h>
#include <sys/syscall.h>
#endif
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "engine/runtime/memory_lock.h"

using namespace wafer;

TEST_CASE("memory lock: ranges are locked by whole pages, shared pages once", "[memory_lock]") {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<uint8_t> buf(8 * page);
  uint8_t* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(buf.data()) + page - 1) / page * page);
  // Two ranges sharing their middle page, one empty range, one null range.
  const ByteRange ranges[] = {{base + 10, page}, {base + page + 20, page}, {base, 0}, {nullptr, 100}};
  auto locked = lock_in_ram(ranges);
  if (!locked) {  // an unprivileged user with a tiny RLIMIT_MEMLOCK: the refusal must say so
    CHECK(locked.error().message.find("RLIMIT_MEMLOCK") != std::string::npos);
    return;
  }
  CHECK(*locked == 3 * page);  // pages 0, 1 and 2
  munlock(base, 3 * page);
  CHECK(*lock_in_ram({}) == 0);
}

TEST_CASE("memory lock: without the privilege and over the limit it fails, naming the limit", "[memory_lock]") {
  // In a child: drop every capability (CAP_IPC_LOCK would ignore the limit) and set the
  // limit to 0, then try to lock 1 MiB.
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    rlimit zero{0, 0};
    if (setrlimit(RLIMIT_MEMLOCK, &zero) != 0) _exit(10);
#if defined(__linux__)  // elsewhere there are no capabilities to drop
    __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (syscall(SYS_capset, &hdr, data) != 0) _exit(11);
#endif
    std::vector<uint8_t> buf(1 << 20, 1);
    const ByteRange r[] = {{buf.data(), buf.size()}};
    auto locked = lock_in_ram(r);
    if (locked) _exit(1);  // locked despite the limit
    const std::string& m = locked.error().message;
    if (m.find("mlock of 1 MiB failed") == std::string::npos) _exit(2);
    if (m.find("RLIMIT_MEMLOCK is 0 MiB") == std::string::npos) _exit(3);
    if (m.find("ulimit -l") == std::string::npos) _exit(4);
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  INFO("child exit code " << WEXITSTATUS(status) << " (10/11: could not drop the limit or capabilities)");
  CHECK(WEXITSTATUS(status) == 0);
}
