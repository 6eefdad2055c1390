#include "engine/runtime/memory_bandwidth.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "engine/runtime/cpu_features.h"
#include "engine/runtime/platform.h"

namespace wafer {
namespace {

// Four independent sums keep several loads in flight; the result feeds `sink` so the
// loop is not removed.
uint64_t sum_words(const uint64_t* p, size_t n) {
  uint64_t a = 0, b = 0, c = 0, d = 0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a += p[i];
    b += p[i + 1];
    c += p[i + 2];
    d += p[i + 3];
  }
  for (; i < n; ++i) a += p[i];
  return a + b + c + d;
}

struct MappedBuffer {
  void* p = nullptr;
  size_t n = 0;
  ~MappedBuffer() { platform::unmap_pages(p, n); }
};

}  // namespace

Result<Bandwidth> measure_read_bandwidth(ThreadPool& pool, const BandwidthOptions& options) {
  const CpuFeatures& cpu = cpu_features();
  size_t bytes = options.buffer_bytes;
  if (bytes == 0) bytes = std::clamp<size_t>(4 * cpu.l3_bytes, size_t{512} << 20, size_t{1} << 30);
  bytes = (bytes + (size_t{2} << 20) - 1) & ~((size_t{2} << 20) - 1);
  if (options.passes < 1) return make_error("bandwidth: passes must be at least 1");

  MappedBuffer buf;
  buf.n = bytes;
  buf.p = platform::map_pages(bytes, size_t{2} << 20);
  if (!buf.p) return make_error("bandwidth: cannot map a " + std::to_string(bytes >> 20) + " MiB buffer");
  platform::advise_huge_pages(buf.p, bytes);  // advice only: fewer TLB misses when granted

  auto* words = static_cast<uint64_t*>(buf.p);
  const size_t n_words = bytes / sizeof(uint64_t);
  const int threads = pool.size();
  // Each thread first-touches the slice it will read (its pages land near its core).
  pool.run([&](int t) {
    auto [b, e] = thread_slice(static_cast<int64_t>(n_words), t, threads, 512);
    for (int64_t i = b; i < e; ++i) words[i] = static_cast<uint64_t>(i);
  });

  std::vector<uint64_t> partial(static_cast<size_t>(threads) * 8);  // a cache line each
  std::vector<double> gbs;
  volatile uint64_t sink = 0;
  for (int pass = 0; pass <= options.passes; ++pass) {
    auto start = std::chrono::steady_clock::now();
    pool.run([&](int t) {
      auto [b, e] = thread_slice(static_cast<int64_t>(n_words), t, threads, 512);
      partial[static_cast<size_t>(t) * 8] = sum_words(words + b, static_cast<size_t>(e - b));
    });
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (int t = 0; t < threads; ++t) sink = sink + partial[static_cast<size_t>(t) * 8];
    if (pass > 0) gbs.push_back(static_cast<double>(bytes) / s / 1e9);  // pass 0 warms up
  }
  std::sort(gbs.begin(), gbs.end());
  Bandwidth r;
  r.read_gbs = gbs[gbs.size() / 2];
  r.best_gbs = gbs.back();
  r.buffer_bytes = bytes;
  r.threads = threads;
  return r;
}

}  // namespace wafer
