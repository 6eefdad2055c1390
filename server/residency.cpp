#include "server/residency.h"

#include <algorithm>
#include <cstdio>

#include "engine/cpu_features.h"
#include "engine/memory_bandwidth.h"
#include "engine/threadpool.h"

namespace wafer {
namespace {

std::string mib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

// The matrices a decoded token multiplies: every 2-D tensor except the embedding table,
// which is only looked up (one row) unless it doubles as the output matrix.
uint64_t decode_bytes(const GgufFile& file, uint64_t* matrices) {
  const bool tied = file.tensor("output.weight") == nullptr;
  uint64_t total = 0;
  for (const GgufTensor& t : file.tensors()) {
    if (t.n_dims < 2) continue;
    if (t.name == "token_embd.weight" && !tied) continue;
    total += t.n_bytes;
    ++*matrices;
  }
  return total;
}

}  // namespace

Result<Residency> measure_residency(const GgufFile& file, int threads) {
  Residency r;
  r.weight_bytes_per_token = decode_bytes(file, &r.matrices);
  const CpuFeatures& cpu = cpu_features();
  r.l1d_bytes = cpu.l1d_bytes;
  r.l2_bytes = cpu.l2_bytes;
  r.l3_bytes = cpu.l3_bytes;
  ThreadPool pool(threads);
  r.threads = pool.size();
  r.bytes_per_thread = r.weight_bytes_per_token / static_cast<uint64_t>(r.threads);
  auto bw = measure_read_bandwidth(pool);
  if (!bw) return bw.error();
  r.read_gbs = bw->read_gbs;
  if (r.weight_bytes_per_token) r.ceiling_tok_s = r.read_gbs * 1e9 / static_cast<double>(r.weight_bytes_per_token);
  if (r.bytes_per_thread)
    r.cached_fraction = std::min(1.0, static_cast<double>(r.l2_bytes) / static_cast<double>(r.bytes_per_thread));
  return r;
}

std::string residency_text(const Residency& r) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "residency:\n"
                "  weights read per decoded token: %s in %llu matrices (%s per thread, %d threads)\n"
                "  caches: L1d %s, L2 %s per core, L3 %s\n"
                "  share of a thread's slice its L2 can hold: %.1f%%\n"
                "  read bandwidth (measured now, %d threads): %.1f GB/s\n"
                "  decode ceiling: %.1f tokens/s (bandwidth / bytes per token)\n",
                mib(r.weight_bytes_per_token).c_str(), static_cast<unsigned long long>(r.matrices),
                mib(r.bytes_per_thread).c_str(), r.threads, mib(r.l1d_bytes).c_str(), mib(r.l2_bytes).c_str(),
                mib(r.l3_bytes).c_str(), 100 * r.cached_fraction, r.threads, r.read_gbs, r.ceiling_tok_s);
  return buf;
}

nlohmann::json residency_json(const Residency& r) {
  return {{"weight_bytes_per_token", r.weight_bytes_per_token},
          {"matrices", r.matrices},
          {"threads", r.threads},
          {"bytes_per_thread", r.bytes_per_thread},
          {"l1d_bytes", r.l1d_bytes},
          {"l2_bytes", r.l2_bytes},
          {"l3_bytes", r.l3_bytes},
          {"l2_fraction_of_thread_slice", r.cached_fraction},
          {"read_bw_gbs", r.read_gbs},
          {"decode_ceiling_tok_s", r.ceiling_tok_s}};
}

}  // namespace wafer
