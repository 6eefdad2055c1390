// bench_kernels: the engine's building blocks against this machine's own limits, measured
// in one run: thread-pool barrier cost, memory read bandwidth, decode matrix-vector
// products (GB/s of weights streamed, as a fraction of the read bandwidth) and prefill
// matrix products (int8 multiply-adds per second) for every packed weight type, the
// activation quantizers, scalar against SIMD, and attention with flat against sharply
// peaked scores. On x86-64 CPUs with AVX-512 VNNI it first times one core's peak FMA,
// VPDPBUSD and VDPBF16PS rates (peak_rates.cpp) and gives the prefill and attention
// figures also as shares of them.
//
//   bench_kernels [--threads N] [--isa avx2|avx512|avx2-vnni|avx2-vnni-evex|amx|amx-bf16|amx-vector-half] [--types q8_0,q4_0,...] [--decode-rows N] [--batches 2,3,4] [--cached] [--quick] [--quantize-only]
//
// --decode-rows N: rows of each decode matrix (default 4,864, the 0.5B model's gate and up;
// 896 is its wo, 128 its k and v): a matrix-vector product that moves fewer bytes per call
// pays its start and end more often.
// --batches N,...: instead of the other tables, stream the decode matrices with batches of N
// tokens, what verifying a speculative draft of N - 1 tokens reads: GB/s of weights with
// each kernel, and the time of the batch as a multiple of one token's (1.00x: the draft's
// rows cost nothing).
// --cached (with --batches): every product reads one and the same matrix, which stays in
// the caches if it fits them (--decode-rows 1024: under 1 MB of Q8_0, in L2 on most
// CPUs): how fast the kernels compute, apart from how fast memory feeds them.
//
// The machine may be shared: every figure is a median of repeated runs, and the
// efficiency compares with the bandwidth measured in the same run.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/quant/float16.h"
#include "engine/runtime/cpu_features.h"
#include "engine/runtime/huge_pages.h"
#include "engine/runtime/float_mode.h"
#include "engine/runtime/memory_bandwidth.h"
#include "engine/kernels/dispatch.h"
#include "engine/quant/quant.h"
#include "engine/quant/quant_repack.h"
#include "engine/runtime/threadpool.h"
#include "engine/runtime/weight_arena.h"

using namespace wafer;

#if defined(__x86_64__)
#define WAFER_BENCH_X86 1
#include "bench/kernels/peak_rates.h"
namespace wafer::bench {
void amx_vector_half_matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,
                            int64_t panel_begin, int64_t panel_end);
}
#else
#define WAFER_BENCH_X86 0
#endif

namespace {

// One core's peak multiply-add rates (peak_rates.cpp), 0 where not measured: the
// prefill and attention figures below are also given as a share of them.
struct Peak {
  double fma = 0, dpbusd = 0;
} g_peak;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Zeroed, 64-byte aligned memory from a WeightArena, as the engine's repacked weights are:
// 2 MiB-aligned mappings advised for huge pages. (Plain 4 KiB pages would time a slower
// stream than the engine's: the hardware prefetcher stops at every 4 KiB page.)
struct Aligned {
  explicit Aligned(size_t n) : n(n) {
    static WeightArena arena;
    auto piece = arena.allocate(n);
    if (!piece) {
      std::fprintf(stderr, "bench_kernels: %s\n", piece.error().message.c_str());
      std::exit(1);
    }
    keep = std::move(*piece);
    p = keep.get();
  }
  std::shared_ptr<uint8_t> keep;
  uint8_t* p = nullptr;
  size_t n;
};

// A rows x cols matrix of random ggml blocks with sane half scales, repacked.
Aligned packed_random(TensorType t, int64_t rows, int64_t cols, std::mt19937& rng) {
  auto info = tensor_type_info(static_cast<uint32_t>(t));
  std::vector<uint8_t> src(*row_bytes(t, cols) * rows);
  for (auto& b : src) b = static_cast<uint8_t>(rng());
  const uint16_t scale = f32_to_f16(0.01f);
  const int d_off = t == TensorType::Q6_K ? 208 : 0;
  for (size_t i = 0; i < src.size() / info->block_bytes; ++i) {
    uint8_t* blk = src.data() + i * info->block_bytes;
    std::memcpy(blk + d_off, &scale, 2);
    if (t == TensorType::Q4_K || t == TensorType::Q5_K) std::memcpy(blk + 2, &scale, 2);
  }
  Aligned out(packed_bytes(t, rows, cols));
  repack(t, src.data(), rows, cols, out.p);
  return out;
}

std::vector<float> random_floats(size_t n, std::mt19937& rng) {
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

double barrier_ns(ThreadPool& pool) {
  std::vector<double> per;
  for (int batch = 0; batch < 30; ++batch) {
    auto t = Clock::now();
    for (int i = 0; i < 2000; ++i) pool.run([](int) {});
    per.push_back(seconds_since(t) / 2000 * 1e9);
  }
  return median(per);
}

struct Args {
  int threads = 0;  // 0: 1 and the physical core count
  const SimdKernels* kernels = best_simd_kernels();
  std::vector<TensorType> types = {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q5_0,
                                   TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K};
  bool quick = false;
  bool quantize_only = false;  // just the activation-quantization and attention figures
  int64_t decode_rows = 4864;  // rows of each decode matrix
  std::vector<int> batches;    // --batches: token counts of the verification table
  bool cached = false;         // --cached: the batch table reads one matrix throughout
};

bool parse(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (s == "--threads") {
      a->threads = std::atoi(next().c_str());
    } else if (s == "--isa") {
      std::string v = next();
      const KernelIsa isa = v == "avx2"             ? KernelIsa::Avx2
                            : v == "avx2-vnni"      ? KernelIsa::Avx2Vnni
                            : v == "avx2-vnni-evex" ? KernelIsa::Avx2VnniEvex
                            : v == "amx"            ? KernelIsa::Amx
                            : v == "amx-bf16"       ? KernelIsa::AmxBf16
                                                    : KernelIsa::Avx512;
      if (v != "avx2" && v != "avx512" && v != "avx2-vnni" && v != "avx2-vnni-evex" && v != "amx" &&
          v != "amx-bf16" && v != "amx-vector-half") {
        std::fprintf(stderr,
                     "--isa: avx2, avx512, avx2-vnni, avx2-vnni-evex, amx, amx-bf16 or amx-vector-half, not '%s'\n",
                     v.c_str());
        return false;
      }
      a->kernels = simd_kernels(isa);
      if (!a->kernels) {
        std::fprintf(stderr, "this CPU cannot run the %s kernels%s\n", v.c_str(),
                     isa == KernelIsa::Amx       ? (std::string(" (AMX: ") + to_string(amx_state()) + ")").c_str()
                     : isa == KernelIsa::AmxBf16 ? (std::string(" (BF16 tiles: ") + to_string(amx_bf16_state()) + ")").c_str()
                                                 : "");
        return false;
      }
      if (v == "amx-vector-half") {
#if WAFER_BENCH_X86
        // The AVX-512 table with the AMX kernel minus its tile instructions (amx_vector_half.cpp).
        static SimdKernels half = *a->kernels;
        half.name = "amx-vector-half (tile instructions as no-ops: not a result)";
        half.matmul = bench::amx_vector_half_matmul;
        a->kernels = &half;
#else
        std::fprintf(stderr, "--isa amx-vector-half: x86-64 only\n");
        return false;
#endif
      }
    } else if (s == "--types") {
      a->types.clear();
      std::string v = next();
      for (size_t p = 0; p <= v.size();) {
        size_t e = v.find(',', p);
        if (e == std::string::npos) e = v.size();
        std::string name = v.substr(p, e - p);
        bool found = false;
        for (uint32_t raw = 0; raw < 40; ++raw) {
          auto info = tensor_type_info(raw);
          if (info && info->name == name && is_packable(info->type)) {
            a->types.push_back(info->type);
            found = true;
          }
        }
        if (!found) {
          std::fprintf(stderr, "unknown or unpackable type '%s'\n", name.c_str());
          return false;
        }
        p = e + 1;
      }
    } else if (s == "--decode-rows") {
      a->decode_rows = std::atoll(next().c_str());
      if (a->decode_rows < 1 || a->decode_rows > (int64_t{1} << 20)) {
        std::fprintf(stderr, "--decode-rows: 1 to 1048576\n");
        return false;
      }
    } else if (s == "--batches") {
      a->batches.clear();
      std::string v = next();
      for (size_t p = 0; p < v.size();) {
        size_t e = v.find(',', p);
        if (e == std::string::npos) e = v.size();
        const int n = std::atoi(v.substr(p, e - p).c_str());
        if (n < 1 || n > 64) {
          std::fprintf(stderr, "--batches: token counts of 1 to 64\n");
          return false;
        }
        a->batches.push_back(n);
        p = e + 1;
      }
    } else if (s == "--cached") {
      a->cached = true;
    } else if (s == "--quick") {
      a->quick = true;
    } else if (s == "--quantize-only") {
      a->quantize_only = true;
    } else {
      std::fprintf(stderr, "usage: bench_kernels [--threads N] [--isa avx2|avx512|avx2-vnni|avx2-vnni-evex|amx|amx-bf16|amx-vector-half] [--types q8_0,...] [--decode-rows N] [--batches 2,3,4] [--cached] [--quick] [--quantize-only]\n");
      return false;
    }
  }
  if (!a->kernels) {
    std::fprintf(stderr, "no packed kernels run on this CPU (needs AVX2)\n");
    return false;
  }
  return true;
}

// Columns of the benchmark matrices: 896 (the 0.5B width), or 1024 for the K-quants,
// whose 256-column blocks do not divide 896.
int64_t bench_cols(TensorType t) {
  return tensor_type_info(static_cast<uint32_t>(t))->block_elems == 256 ? 1024 : 896;
}

// Decode: one token through a stack of matrices bigger than the caches, each split into
// per-thread panel slices, as the forward pass does. GB/s of weights with SimdKernels::matmul
// and, where prefetch_applies (K-quants, Q8_0, Q4_0, Q5_0), with matmul_prefetch (far),
// matmul_prefetch_near and matmul_prefetch_l2 (the backend picks one of the four by timing;
// 0 for the other types, whose kernels are the same), the four in turn pass by pass.
struct DecodeGbs {
  double plain = 0, far = 0, near = 0, l2 = 0;
};

// The kernels of the four prefetch kinds (DecodePrefetch order: off, far, near, l2), and the
// kind to run i-th in repetition rep: the three orders of the backend's trial
// (simd_backend.cpp), so that each kind follows each other one equally often (a pass can
// slow the one after it).
std::array<PackedMatmulFn, kPrefetchKinds> prefetch_twins(const SimdKernels& k) {
  return {k.matmul, k.matmul_prefetch, k.matmul_prefetch_near, k.matmul_prefetch_l2};
}
int kind_in_turn(int rep, int i) {
  static constexpr int kOrder[3][kPrefetchKinds] = {{0, 1, 2, 3}, {0, 2, 1, 3}, {2, 0, 3, 1}};
  return kOrder[rep % 3][i];
}
DecodeGbs decode_gbs(const Args& a, ThreadPool& pool, TensorType t, std::mt19937& rng) {
  const bool twins = prefetch_applies(t, 1);  // the prefetch kernels differ
  const int64_t rows = a.decode_rows, cols = bench_cols(t);
  const size_t one = packed_bytes(t, rows, cols);
  const CpuFeatures& cpu = cpu_features();
  const size_t want = std::max<size_t>(size_t{256} << 20, 4 * cpu.l3_bytes) / (a.quick ? 4 : 1);
  std::vector<Aligned> mats;
  for (size_t total = 0; total < want; total += one) mats.push_back(packed_random(t, rows, cols, rng));
  auto x = random_floats(cols, rng);
  Aligned abuf(quantized_acts_bytes(t, cols, 1));
  QuantizedActs q = quantize_acts(t, x.data(), cols, 1, cols, abuf.p);
  std::vector<float> y(rows);
  const int n = pool.size();
  const auto fns = prefetch_twins(*a.kernels);
  std::vector<double> gbs[kPrefetchKinds];
  for (int rep = 0; rep < (a.quick ? 4 : 12); ++rep) {
    for (int i = 0; i < (twins ? kPrefetchKinds : 1); ++i) {
      const int kind = twins ? kind_in_turn(rep, i) : 0;
      const PackedMatmulFn fn = fns[kind];
      auto start = Clock::now();
      for (auto& m : mats) {
        PackedMatrix pm{t, rows, cols, m.p};
        pool.run([&](int th) {
          auto [b, e] = thread_slice(pm.panels(), th, n);
          fn(pm, q, y.data(), rows, b, e);
        });
      }
      double s = seconds_since(start);
      if (rep > 0) gbs[kind].push_back(static_cast<double>(one * mats.size()) / s / 1e9);
    }
  }
  const auto med = [&](int k) { return gbs[k].empty() ? 0 : median(gbs[k]); };
  return {med(0), med(1), med(2), med(3)};
}

// Prefill: n_tokens through one FFN-shaped matrix (L2-resident panels, activations
// shared). Returns multiply-adds per second (1e9).
double prefill_gmacs(const Args& a, ThreadPool& pool, TensorType t, int n_tokens, std::mt19937& rng) {
  const int64_t rows = 4864, cols = bench_cols(t);
  Aligned m = packed_random(t, rows, cols, rng);
  PackedMatrix pm{t, rows, cols, m.p};
  auto x = random_floats(static_cast<size_t>(cols * n_tokens), rng);
  Aligned abuf(quantized_acts_bytes(t, cols, n_tokens));
  QuantizedActs q = quantize_acts(t, x.data(), cols, n_tokens, cols, abuf.p);
  // The outputs on huge pages, as the forward pass holds them (a 512-token output is 10 MB,
  // its rows 19 KB apart: on 4 KiB pages every token's stores go to another page).
  std::vector<float, HugePageAllocator<float>> y(static_cast<size_t>(rows * n_tokens));
  const int n = pool.size();
  std::vector<double> g;
  for (int rep = 0; rep < (a.quick ? 3 : 7); ++rep) {
    auto start = Clock::now();
    pool.run([&](int th) {
      auto [b, e] = thread_slice(pm.panels(), th, n);
      a.kernels->matmul(pm, q, y.data(), rows, b, e);
    });
    double s = seconds_since(start);
    if (rep > 0) g.push_back(static_cast<double>(rows * cols) * n_tokens / s / 1e9);
  }
  return median(g);
}

// Activation quantization, as each matmul input is quantized per token: ns per element of
// the scalar reference (quantize_act_rows) and of the kernels' SIMD twin, alternating in
// one loop on one thread. 32 rows per call (a thread's share of a prefill batch).
void bench_quantize(const Args& a, std::mt19937& rng) {
  std::printf("\nactivation quantization, 1 thread, ns per element (32 rows of floats per call)\n");
  std::printf("%-5s %6s %8s %8s %8s %10s\n", "acts", "cols", "scalar", a.kernels->name, "speedup", "simd GB/s");
  const int n = 32;
  for (TensorType wt : {TensorType::Q4_0, TensorType::Q4_K}) {
    // The 0.5B shape's 896 and 4864; Q8_K rows are whole 256-blocks (1536: the 1.5B width).
    for (int64_t cols : {wt == TensorType::Q4_0 ? 896 : 1536, 4864}) {
      auto x = random_floats(static_cast<size_t>(cols * n), rng);
      Aligned buf(quantized_acts_bytes(wt, cols, n));
      const QuantizedActs view = acts_view(wt, n, cols, buf.p);
      std::vector<double> scalar, simd;
      for (int rep = 0; rep < (a.quick ? 20 : 200); ++rep) {
        auto t = Clock::now();
        quantize_act_rows(view, x.data(), cols, 0, n);
        scalar.push_back(seconds_since(t));
        t = Clock::now();
        a.kernels->quantize(view, x.data(), cols, 0, n);
        simd.push_back(seconds_since(t));
      }
      const double elems = static_cast<double>(cols) * n, s = median(scalar), v = median(simd);
      std::printf("%-5s %6lld %8.3f %8.3f %7.1fx %10.1f\n", std::string(tensor_type_name(view.type)).c_str(),
                  static_cast<long long>(cols), s / elems * 1e9, v / elems * 1e9, s / v, elems * 4 / v / 1e9);
    }
  }
}

// Attention of one 7-head query group (the 0.5B shape: 14 heads over 2 key/value heads,
// 64 dimensions) over 1,500 cached positions of an F16 cache, 1 thread, with flush-to-zero
// off so the kernel's own arithmetic shows: flat scores (every weight between ~1e-3 and 1)
// against sharply peaked ones (one key far above the rest, whose e^(score - max) would be
// denormal). On cores that take a microcode assist per denormal operation (Intel) a
// softmax that produced denormals ran several times slower on the peaked case.
void bench_attention(const Args& a, std::mt19937& rng) {
  const int heads = 7, dk = 64, dv = 64, n_pos = 1500, blocks = (n_pos + 15) / 16;
  std::normal_distribution<float> n01(0.f, 1.f);
  std::vector<uint16_t> keys(static_cast<size_t>(blocks) * 16 * dk), values(static_cast<size_t>(n_pos) * dv);
  for (auto& x : keys) x = f32_to_f16(n01(rng));
  for (auto& x : values) x = f32_to_f16(n01(rng));
  std::vector<float> flat(static_cast<size_t>(heads) * dk), peaked(flat.size());
  for (auto& x : flat) x = 0.5f * n01(rng);
  // Each head's query is 40x a stored key: its score is far above every other key's.
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < dk; ++i) {
      const int p = 97 * h + 11;
      peaked[static_cast<size_t>(h) * dk + i] = 40.0f * f16_to_f32(keys[static_cast<size_t>(p / 16 * dk + i) * 16 + p % 16]);
    }
  std::vector<float> scratch(attend_scratch_floats(heads, n_pos, dv)), out(static_cast<size_t>(heads) * dv);
  const float scale = 1.0f / 8.0f;
  keep_denormals_in_this_thread();
  auto time_us = [&](const std::vector<float>& q) {
    std::vector<double> t;
    for (int rep = 0; rep < (a.quick ? 30 : 300); ++rep) {
      const auto start = Clock::now();
      a.kernels->attend_f16(q.data(), dk, heads, keys.data(), values.data(), n_pos, dk, dv, scale, scratch.data(),
                            out.data(), dv, nullptr);
      t.push_back(seconds_since(start));
    }
    return median(t) * 1e6;
  };
  const double f = time_us(flat), p = time_us(peaked);
  int zero = 0;
  for (int i = 0; i < n_pos; ++i) zero += scratch[i] == 0.0f;
  flush_denormals_in_this_thread();
  std::printf("\nattention, %d heads x %d positions (F16 cache), 1 thread, flush-to-zero off, us per call\n", heads, n_pos);
  std::printf("flat %.1f  peaked %.1f  peaked/flat %.2f  (peaked: %d of %d weights of head 0 exactly 0)\n", f, p, p / f,
              zero, n_pos);
}

// Prefill attention of one KV head's group (the 0.5B shape: 7 heads, 64 dimensions) for 64
// tokens after `depth` cached positions, each query with its causal limit, 1 thread: the
// vector kernel in the engine's blocks of 16 tokens (112 queries per call) against the AMX
// BF16 tiles (attend_f16_tiles) in one call of 448 queries, where the table has them. The
// multiply-adds counted are the useful ones (q.k and w.v up to each query's own limit).
void bench_prefill_attention(const Args& a, std::mt19937& rng, int depth) {
  const int heads = 7, dk = 64, dv = 64, tokens = 64, n_pos = depth + tokens, blocks = (n_pos + 15) / 16;
  std::normal_distribution<float> n01(0.f, 1.f);
  std::vector<uint16_t> keys(static_cast<size_t>(blocks) * 16 * dk), values(static_cast<size_t>(n_pos) * dv);
  for (auto& x : keys) x = f32_to_f16(n01(rng));
  for (auto& x : values) x = f32_to_f16(n01(rng));
  const int n_q = tokens * heads;
  std::vector<float> q(static_cast<size_t>(n_q) * dk), out(static_cast<size_t>(n_q) * dv), ref(out.size());
  for (auto& x : q) x = 0.5f * n01(rng);
  std::vector<int> limits(n_q);
  double macs = 0;
  for (int j = 0; j < n_q; ++j) {
    limits[j] = depth + j / heads + 1;
    macs += static_cast<double>(limits[j]) * (dk + dv);
  }
  const int block = 16 * heads;
  std::vector<float> scratch(attend_scratch_floats(block, n_pos, dv));
  const float scale = 1.0f / 8.0f;
  const auto vector_call = [&](float* o) {
    for (int j0 = 0; j0 < n_q; j0 += block) {
      const int count = std::min(block, n_q - j0);
      a.kernels->attend_f16(q.data() + static_cast<size_t>(j0) * dk, dk, count, keys.data(), values.data(),
                            limits[j0 + count - 1], dk, dv, scale, scratch.data(), o + static_cast<size_t>(j0) * dv,
                            dv, limits.data() + j0);
    }
  };
  const auto tiles_call = [&](float* o) {
    a.kernels->attend_f16_tiles(q.data(), dk, n_q, keys.data(), values.data(), n_pos, dk, dv, scale, scratch.data(),
                                o, dv, limits.data());
  };
  const auto time_us = [&](auto&& call, float* o) {
    std::vector<double> t;
    for (int rep = 0; rep < (a.quick ? 5 : 30); ++rep) {
      const auto start = Clock::now();
      call(o);
      t.push_back(seconds_since(start));
    }
    return median(t) * 1e6;
  };
  std::printf("\nprefill attention, %d tokens x %d heads after %d positions (F16 cache), 1 thread, us per head group\n",
              tokens, heads, depth);
  const double v = time_us(vector_call, ref.data());
  std::printf("vector %.0f us (%.1f GMAC/s", v, macs / v * 1e-3);
  if (g_peak.fma > 0) std::printf(", %.2f of the FMA peak", macs / v * 1e-3 / g_peak.fma);
  std::printf(")");
  if (!a.kernels->attend_f16_tiles) {
    std::printf("; tiles: not in this table (%s)\n", to_string(attend_tiles_state()));
    return;
  }
  const double t = time_us(tiles_call, out.data());
  double worst = 0;
  for (size_t i = 0; i < out.size(); ++i) worst = std::max(worst, double{std::fabs(out[i] - ref[i])});
  std::printf("  tiles %.0f us (%.1f GMAC/s)  vector/tiles %.2f  max |diff| %.2g\n", t, macs / t * 1e-3, v / t, worst);
}

}  // namespace

void print_peak_rates([[maybe_unused]] const CpuFeatures& cpu) {
#if WAFER_BENCH_X86
  if (cpu.avx512f && cpu.avx512vnni) {
    const bench::PeakRates r = bench::measure_peak_rates_avx512(cpu.avx512bf16);
    g_peak = {r.fma_gmacs, r.dpbusd_gmacs};
    char bf16[48] = "not on this CPU";
    if (r.dpbf16_gmacs > 0) std::snprintf(bf16, sizeof bf16, "%.0f", r.dpbf16_gmacs);
    std::printf("peak of one core, GMAC/s: FP32 FMA %.0f, VPDPBUSD (int8) %.0f, VDPBF16PS (BF16) %s\n", r.fma_gmacs,
                r.dpbusd_gmacs, bf16);
    return;
  }
#endif
  std::printf("peak of one core: measured on x86-64 CPUs with AVX-512 VNNI only\n");
}

// --batches: the decode matrices streamed with one token and with each batch size, each
// kernel (off/far/near/l2: the prefetch kinds, one figure where they are the same kernel), all
// taking turns repetition by repetition so that a noisy spell hits them alike. Printed: GB/s
// of weights, and the time of n tokens over one token's, the fastest kernel of each (the
// backend times the kinds and keeps the fastest).
void print_batches(const Args& a, ThreadPool& pool, std::mt19937& rng) {
  std::vector<int> sizes{1};
  sizes.insert(sizes.end(), a.batches.begin(), a.batches.end());
  std::printf("\nsmall batches (verifying a draft of n - 1 tokens): GB/s of weights off/far/near/l2, and the time of\n"
              "n tokens over one token's, fastest kernel each; matrices of %lld rows%s\n%-6s",
              static_cast<long long>(a.decode_rows), a.cached ? ", one matrix read throughout (--cached)" : "", "type");
  for (int n : sizes) std::printf(" %25s", ("n = " + std::to_string(n)).c_str());
  std::printf("\n");
  const auto fns = prefetch_twins(*a.kernels);
  const int threads = pool.size();
  for (TensorType t : a.types) {
    const int64_t rows = a.decode_rows, cols = bench_cols(t);
    const size_t one = packed_bytes(t, rows, cols);
    const size_t want = std::max<size_t>(size_t{256} << 20, 4 * cpu_features().l3_bytes) / (a.quick ? 4 : 1);
    std::vector<Aligned> mats;
    if (a.cached) {  // as many products, all of one matrix
      const Aligned m = packed_random(t, rows, cols, rng);
      mats.assign((want + one - 1) / one, m);
    } else {
      for (size_t total = 0; total < want; total += one) mats.push_back(packed_random(t, rows, cols, rng));
    }
    const int max_n = *std::max_element(sizes.begin(), sizes.end());
    auto x = random_floats(static_cast<size_t>(cols * max_n), rng);
    std::vector<float> y(static_cast<size_t>(rows * max_n));
    std::vector<Aligned> acts;
    std::vector<QuantizedActs> q;
    for (int n : sizes) {
      acts.emplace_back(quantized_acts_bytes(t, cols, n));
      q.push_back(quantize_acts(t, x.data(), cols, n, cols, acts.back().p));
    }
    std::vector<std::array<std::vector<double>, kPrefetchKinds>> gbs(sizes.size());
    for (int rep = 0; rep < (a.quick ? 4 : 10); ++rep) {
      for (size_t i = 0; i < sizes.size(); ++i) {
        const bool twins = prefetch_applies(t, sizes[i]);
        for (int kind = 0; kind < (twins ? kPrefetchKinds : 1); ++kind) {
          const int k = twins ? kind_in_turn(rep, kind) : 0;
          auto start = Clock::now();
          for (auto& m : mats) {
            PackedMatrix pm{t, rows, cols, m.p};
            pool.run([&](int th) {
              auto [b, e] = thread_slice(pm.panels(), th, threads);
              fns[k](pm, q[i], y.data(), rows, b, e);
            });
          }
          const double sec = seconds_since(start);
          if (rep > 0) gbs[i][static_cast<size_t>(k)].push_back(static_cast<double>(one * mats.size()) / sec / 1e9);
        }
      }
    }
    std::vector<double> best(sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i)
      for (auto& v : gbs[i]) best[i] = std::max(best[i], v.empty() ? 0.0 : median(v));
    std::printf("%-6s", std::string(tensor_type_name(t)).c_str());
    for (size_t i = 0; i < sizes.size(); ++i) {
      char cell[64];
      if (!gbs[i][1].empty())
        std::snprintf(cell, sizeof cell, "%.0f/%.0f/%.0f/%.0f (%.2fx)", median(gbs[i][0]), median(gbs[i][1]),
                      median(gbs[i][2]), median(gbs[i][3]), best[0] / best[i]);
      else
        std::snprintf(cell, sizeof cell, "%.0f (%.2fx)", median(gbs[i][0]), best[0] / best[i]);
      std::printf(" %25s", cell);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
}

int main(int argc, char** argv) {
  Args a;
  if (!parse(argc, argv, &a)) return 2;
  const CpuFeatures& cpu = cpu_features();
  std::printf("%s", describe(cpu).c_str());
  std::printf("kernels: %s\n", a.kernels->name);
  std::mt19937 rng(42);
  if (!a.batches.empty()) {
    ThreadPool pool(a.threads > 0 ? a.threads : static_cast<int>(cpu.physical_cores));
    print_batches(a, pool, rng);
    return 0;
  }
  print_peak_rates(cpu);
  bench_quantize(a, rng);
  bench_attention(a, rng);
  bench_prefill_attention(a, rng, 0);
  bench_prefill_attention(a, rng, 1450);
  if (a.quantize_only) return 0;
  std::vector<int> thread_counts;
  if (a.threads > 0)
    thread_counts.push_back(a.threads);
  else {
    thread_counts.push_back(1);
    if (cpu.physical_cores > 1) thread_counts.push_back(static_cast<int>(cpu.physical_cores));
  }
  for (int threads : thread_counts) {
    ThreadPool pool(threads);
    auto bw = measure_read_bandwidth(pool);
    if (!bw.ok()) {
      std::fprintf(stderr, "%s\n", bw.error().message.c_str());
      return 1;
    }
    std::printf("\nthreads %d: barrier %.0f ns per run, read bandwidth %.1f GB/s (best %.1f); decode matrices of %lld rows\n",
                threads, barrier_ns(pool), bw->read_gbs, bw->best_gbs, static_cast<long long>(a.decode_rows));
    std::printf("%-6s %12s %11s %12s %13s %11s %16s %16s%s\n", "type", "decode GB/s", "efficiency", "far prefetch",
                "near prefetch", "l2 prefetch", "prefill128 GMAC/s", "prefill512 GMAC/s",
                g_peak.dpbusd > 0 ? "  (share of the VPDPBUSD peak)" : "");
    for (TensorType t : a.types) {
      const DecodeGbs d = decode_gbs(a, pool, t, rng);
      double p128 = prefill_gmacs(a, pool, t, 128, rng);
      double p512 = prefill_gmacs(a, pool, t, 512, rng);
      char far[16] = "-", near[16] = "-", l2[16] = "-";
      if (d.far > 0) std::snprintf(far, sizeof far, "%.1f", d.far);
      if (d.near > 0) std::snprintf(near, sizeof near, "%.1f", d.near);
      if (d.l2 > 0) std::snprintf(l2, sizeof l2, "%.1f", d.l2);
      std::printf("%-6s %12.1f %11.2f %12s %13s %11s %16.0f %16.0f", std::string(tensor_type_name(t)).c_str(), d.plain,
                  d.plain / bw->read_gbs, far, near, l2, p128, p512);
      if (g_peak.dpbusd > 0)
        std::printf("  (%.2f, %.2f)", p128 / (g_peak.dpbusd * threads), p512 / (g_peak.dpbusd * threads));
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  return 0;
}
