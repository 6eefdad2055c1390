// A guarded file mapping survives the file being truncated under it: reads see zeros
// instead of raising SIGBUS, and the event is counted (engine/runtime/mapping_guard.h).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>

#include "engine/runtime/mapping_guard.h"
#include "tests/support/testing.h"

TEST_CASE("mapping guard: a truncated file reads as zeros and is counted", "[mapping_guard]") {
  wafer::test::TempDir dir;
  auto path = dir / "weights.bin";
  wafer::test::write_file(path, std::string(1 << 16, '\x7f'));
  int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  const size_t len = 1 << 16;
  void* addr = ::mmap(nullptr, len, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  REQUIRE(addr != MAP_FAILED);
  wafer::guard_mapping(addr, len);
  const volatile char* bytes = static_cast<const char*>(addr);
  CHECK(bytes[len - 1] == '\x7f');
  const uint64_t before = wafer::mapping_faults();

  std::filesystem::resize_file(path, 0);
  CHECK(bytes[len - 1] == 0);  // without the guard: SIGBUS
  CHECK(bytes[0] == 0);
  CHECK(wafer::mapping_faults() == before + 1);

  wafer::unguard_mapping(addr);
  ::munmap(addr, len);
}
