// Latency percentiles and counters reported by wafer/stats.
#include <catch2/catch.hpp>

#include "server/daemon/stats.h"

using namespace wafer;

TEST_CASE("stats: nearest-rank percentiles over the samples", "[stats]") {
  LatencySeries s;
  CHECK(s.percentile(0.5) == 0);
  for (int i = 1; i <= 100; ++i) s.add(i);
  CHECK(s.percentile(0.5) == 50);
  CHECK(s.percentile(0.9) == 90);
  CHECK(s.percentile(0.99) == 99);
  CHECK(s.percentile(1.0) == 100);
  auto j = s.to_json();
  CHECK(j["count"] == 100);
  CHECK(j["max"] == 100.0);
  CHECK(j["mean"] == 50.5);
}

TEST_CASE("stats: the window keeps the most recent samples", "[stats]") {
  LatencySeries s;
  for (size_t i = 0; i < LatencySeries::kWindow; ++i) s.add(1000);
  for (size_t i = 0; i < LatencySeries::kWindow; ++i) s.add(1);
  CHECK(s.percentile(0.99) == 1);
  CHECK(s.count() == 2 * LatencySeries::kWindow);
  CHECK(s.to_json()["max"] == 1000.0);
}

TEST_CASE("stats: counters and stages in one JSON object", "[stats]") {
  Stats st;
  st.count("requests");
  st.count("requests", 2);
  st.record("engine_ms", 4);
  CHECK(st.counter("requests") == 3);
  CHECK(st.counter("missing") == 0);
  auto j = st.to_json();
  CHECK(j["counts"]["requests"] == 3);
  CHECK(j["latency_ms"]["engine_ms"]["p50"] == 4.0);
}
