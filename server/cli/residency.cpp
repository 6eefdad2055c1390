#include "server/cli/residency.h"

#include <algorithm>
#include <cstdio>

#include "engine/runtime/cpu_features.h"
#include "engine/kernels/kernels.h"
#include "engine/compute/kv_cache.h"
#include "engine/model/model_config.h"
#include "engine/runtime/memory_bandwidth.h"
#include "engine/runtime/platform.h"
#include "engine/runtime/threadpool.h"

namespace wafer {
namespace {

// "32 KiB" below a MiB (an L1d cache printed as "0.0 MiB" said nothing), else "2.4 MiB".
std::string mib(uint64_t bytes) {
  char buf[32];
  if (bytes < (uint64_t{1} << 20))
    std::snprintf(buf, sizeof buf, "%.0f KiB", static_cast<double>(bytes) / 1024);
  else
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
  r.kernels = std::string(kernels::default_backend().name());
  r.pages = platform::huge_pages_text();
  r.amx = to_string(amx_state());
  r.attention_tiles = to_string(attend_tiles_state());
  ThreadPool pool(threads);
  r.threads = pool.size();
  r.bytes_per_thread = r.weight_bytes_per_token / static_cast<uint64_t>(r.threads);
  auto bw = measure_read_bandwidth(pool);
  if (!bw) return bw.error();
  r.read_gbs = bw->read_gbs;
  if (r.weight_bytes_per_token) r.ceiling_tok_s = r.read_gbs * 1e9 / static_cast<double>(r.weight_bytes_per_token);
  if (r.bytes_per_thread)
    r.cached_fraction = std::min(1.0, static_cast<double>(r.l2_bytes) / static_cast<double>(r.bytes_per_thread));
  if (auto c = read_model_config(file)) {
    r.kv_f16_bytes = KvCache::bytes_per_token(*c, KvType::F16);
    r.kv_f32_bytes = KvCache::bytes_per_token(*c, KvType::F32);
    if (c->head_dim_k % 32 == 0) r.kv_q8_0_bytes = KvCache::bytes_per_token(*c, KvType::Q8_0);
    const double deep = static_cast<double>(r.weight_bytes_per_token) + Residency::kDepth * r.kv_f16_bytes;
    if (deep > 0) r.ceiling_at_depth_tok_s = r.read_gbs * 1e9 / deep;
  }
  return r;
}

std::string residency_text(const Residency& r) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "residency:\n"
                "  weights read per decoded token: %s in %llu matrices (%s per thread, %d threads)\n"
                "  kernels: %s (chosen by the CPU's features; AMX: %s; attention on tiles: %s); caches: L1d %s, L2 %s per "
                "core, L3 %s\n"
                "  share of a thread's slice its L2 can hold: %.1f%%\n"
                "  read bandwidth (measured now, %d threads): %.1f GB/s\n"
                "  decode ceiling: %.1f tokens/s (bandwidth / bytes per token)\n"
                "  pages of the large buffers: %s\n",
                mib(r.weight_bytes_per_token).c_str(), static_cast<unsigned long long>(r.matrices),
                mib(r.bytes_per_thread).c_str(), r.threads, r.kernels.c_str(), r.amx.c_str(), r.attention_tiles.c_str(),
                mib(r.l1d_bytes).c_str(),
                mib(r.l2_bytes).c_str(),
                mib(r.l3_bytes).c_str(), 100 * r.cached_fraction, r.threads, r.read_gbs, r.ceiling_tok_s, r.pages.c_str());
  std::string out = buf;
  if (r.kv_f16_bytes > 0) {
    char q8[48] = "not possible (key head size)";
    if (r.kv_q8_0_bytes > 0) std::snprintf(q8, sizeof q8, "%.1f KiB", r.kv_q8_0_bytes / 1024);
    std::snprintf(buf, sizeof buf,
                  "  KV cache per token of context: f16 %.1f KiB, q8_0 %s, f32 %.1f KiB (--kv-type);\n"
                  "    attention reads it again for every decoded token: %d tokens deep with f16,\n"
                  "    %s more per token, a decode ceiling of %.1f tokens/s there\n",
                  r.kv_f16_bytes / 1024, q8, r.kv_f32_bytes / 1024, Residency::kDepth,
                  mib(static_cast<uint64_t>(Residency::kDepth * r.kv_f16_bytes)).c_str(), r.ceiling_at_depth_tok_s);
    out += buf;
  }
  return out;
}

nlohmann::json residency_json(const Residency& r) {
  return {{"weight_bytes_per_token", r.weight_bytes_per_token},
          {"matrices", r.matrices},
          {"threads", r.threads},
          {"bytes_per_thread", r.bytes_per_thread},
          {"kernels", r.kernels},
          {"amx", r.amx},
          {"pages", r.pages},
          {"attention_tiles", r.attention_tiles},
          {"l1d_bytes", r.l1d_bytes},
          {"l2_bytes", r.l2_bytes},
          {"l3_bytes", r.l3_bytes},
          {"l2_fraction_of_thread_slice", r.cached_fraction},
          {"read_bw_gbs", r.read_gbs},
          {"decode_ceiling_tok_s", r.ceiling_tok_s},
          {"kv_bytes_per_token", {{"f16", r.kv_f16_bytes}, {"q8_0", r.kv_q8_0_bytes}, {"f32", r.kv_f32_bytes}}},
          {"depth", Residency::kDepth},
          {"decode_ceiling_at_depth_tok_s", r.ceiling_at_depth_tok_s}};
}

}  // namespace wafer
