#include "engine/runtime/memory_bandwidth.h"

#include <catch2/catch.hpp>

using namespace wafer;

TEST_CASE("read bandwidth of a small buffer is measured on the pool's threads") {
  ThreadPool pool(ThreadPoolOptions{2, false, 100});
  auto bw = measure_read_bandwidth(pool, {size_t{8} << 20, 3});
  REQUIRE(bw.ok());
  CHECK(bw->buffer_bytes == (size_t{8} << 20));
  CHECK(bw->threads == 2);
  // Any machine that runs this streams more than 0.2 GB/s and less than 10 TB/s.
  CHECK(bw->read_gbs > 0.2);
  CHECK(bw->read_gbs < 10000);
  CHECK(bw->best_gbs >= bw->read_gbs);
  REQUIRE_FALSE(measure_read_bandwidth(pool, {size_t{8} << 20, 0}).ok());
}
