// Huge-page mappings and the allocator built on them: big buffers are 2 MiB aligned and
// zeroed, small ones come from the heap, and vectors copy and free either kind.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "engine/runtime/huge_pages.h"

using namespace wafer;

TEST_CASE("huge pages: mappings are 2 MiB aligned and zeroed", "[huge_pages]") {
  auto p = map_huge(3 << 20);
  REQUIRE(p);
  CHECK(reinterpret_cast<uintptr_t>(p.get()) % (2 << 20) == 0);
  for (size_t i = 0; i < (3 << 20); i += 4096) REQUIRE(p.get()[i] == 0);
  p.get()[(4 << 20) - 1] = 7;  // rounded up to whole huge pages: 4 MiB are usable
}

TEST_CASE("huge pages: the allocator serves big and small vectors", "[huge_pages]") {
  std::vector<uint16_t, HugePageAllocator<uint16_t>> big(3 << 20, 0), small(100, 5);
  CHECK(reinterpret_cast<uintptr_t>(big.data()) % (2 << 20) == 0);  // 6 MiB: mapped
  big[12345] = 9;
  auto copy = big;  // KvCache::copy() copies its vectors
  CHECK(copy[12345] == 9);
  CHECK(reinterpret_cast<uintptr_t>(copy.data()) % (2 << 20) == 0);
  CHECK(small[99] == 5);
  small.resize(1 << 21, 1);  // grows past the threshold: moves to a mapping
  CHECK(small[0] == 5);
  CHECK(small[(1 << 21) - 1] == 1);
  CHECK(reinterpret_cast<uintptr_t>(small.data()) % (2 << 20) == 0);
}

TEST_CASE("huge pages: buffers from 512 KiB up are mapped", "[huge_pages]") {
  // A 512-token activation of a 896-wide row is 1.8 MB: on a huge page, not 448 small ones.
  std::vector<float, HugePageAllocator<float>> rows(512 * 896);
  CHECK(reinterpret_cast<uintptr_t>(rows.data()) % (2 << 20) == 0);
  std::vector<float, HugePageAllocator<float>> smallest((512 << 10) / sizeof(float));  // exactly the threshold
  CHECK(reinterpret_cast<uintptr_t>(smallest.data()) % (2 << 20) == 0);
}
