// Latency percentiles and counters reported by wafer/stats.
#include <catch2/catch.hpp>

#include "server/lsp/stats_json.h"
#include "server/service/stats.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace wafer;

TEST_CASE("stats: nearest-rank percentiles over the samples", "[stats]") {
  LatencySeries s;
  CHECK(s.percentile(0.5) == 0);
  for (int i = 1; i <= 100; ++i) s.add(i);
  CHECK(s.percentile(0.5) == 50);
  CHECK(s.percentile(0.9) == 90);
  CHECK(s.percentile(0.99) == 99);
  CHECK(s.percentile(1.0) == 100);
  auto j = latency_json(s);
  CHECK(j["count"] == 100);
  CHECK(j["max"] == 100.0);
  CHECK(j["mean"] == 50.5);
}

TEST_CASE("stats: percentiles from a fixed histogram, within 1/64 below the sample", "[stats]") {
  LatencySeries s;
  s.add(0.3);
  const size_t bytes = s.count() ? LatencySeries::kBytes : 0;
  CHECK(bytes > 0);
  // A million samples from 0.001 ms to 485 s: the same memory, percentiles within a bucket.
  std::vector<double> values;
  for (int i = 0; i < 1000000; ++i) values.push_back(0.001 * std::pow(1.00002, i));
  for (double v : values) s.add(v);
  values.push_back(0.3);
  for (double q : {0.01, 0.5, 0.9, 0.99}) {
    double exact = nearest_rank(values, q);
    double got = s.percentile(q);
    INFO("q " << q << ": exact " << exact << ", histogram " << got);
    CHECK(got <= exact);
    CHECK(got >= exact * (1 - 1.0 / LatencySeries::kSubBuckets));
  }
  CHECK(s.count() == values.size());
  CHECK(s.percentile(1.0) == *std::max_element(values.begin(), values.end()));
}

TEST_CASE("stats: zero, negative, tiny and huge samples land in the end buckets", "[stats]") {
  CHECK(LatencySeries::bucket_of(0) == 0);
  CHECK(LatencySeries::bucket_of(-5) == 0);
  CHECK(LatencySeries::bucket_of(1e-9) == 0);
  CHECK(LatencySeries::bucket_of(1e12) == LatencySeries::kBuckets - 1);
  CHECK(LatencySeries::lower_bound_of(LatencySeries::bucket_of(99)) == 99);
  LatencySeries s;
  s.add(0);
  s.add(0);
  s.add(-0.5);  // a difference of clocks can come out slightly negative
  CHECK(s.percentile(0.5) == -0.5);  // the first bucket reports the smallest sample
  s.add(1e12);
  CHECK(s.percentile(1.0) == 1e12);
}

TEST_CASE("stats: counters and stages in one JSON object", "[stats]") {
  Stats st;
  st.count("requests");
  st.count("requests", 2);
  st.record("engine_ms", 4);
  CHECK(st.counter("requests") == 3);
  CHECK(st.counter("missing") == 0);
  auto j = stats_json(st);
  CHECK(j["counts"]["requests"] == 3);
  CHECK(j["latency_ms"]["engine_ms"]["p50"] == 4.0);
}
