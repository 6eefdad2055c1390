// Issue rates of the vector multiply-add instructions the kernels are built on, on one
// core: twelve independent accumulators per instruction kind (more than latency x ports on
// any current core), in a loop that touches no memory. bench_kernels divides the kernels'
// multiply-adds per second by these. Compiled with the AVX-512 flags (VNNI, BF16); the
// caller checks the CPU first.
#include "bench/kernels/peak_rates.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace wafer::bench {
namespace {

constexpr long kSteps = 2'000'000;  // iterations of 12 instructions per timing
volatile float g_sink;  // the loops' results, so that none of them is dead

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The accumulators go through an empty asm each iteration so they stay in registers and
// the loop is not folded; the result is returned so nothing is dead.
#define WAFER_ACCS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define WAFER_KEEP(T)                                                                                        \
  __asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5), "+v"(a6), "+v"(a7), \
                   "+v"(a8), "+v"(a9), "+v"(a10), "+v"(a11))

[[gnu::noinline]] float fma_ns(double* ns) {
  const __m512 x = _mm512_set1_ps(1e-3f), y = _mm512_set1_ps(1e-3f);
#define WAFER_INIT(i) __m512 a##i = _mm512_set1_ps(static_cast<float>(i));
  WAFER_ACCS(WAFER_INIT)
#undef WAFER_INIT
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < kSteps; ++i) {
#define WAFER_STEP(i) a##i = _mm512_fmadd_ps(x, y, a##i);
    WAFER_ACCS(WAFER_STEP)
#undef WAFER_STEP
    WAFER_KEEP();
  }
  *ns = seconds(t0) * 1e9 / (12.0 * kSteps);
#define WAFER_SUM(i) +_mm512_reduce_add_ps(a##i)
  return 0.0f WAFER_ACCS(WAFER_SUM);
#undef WAFER_SUM
}

[[gnu::noinline]] float dpbusd_ns(double* ns) {
  const __m512i u = _mm512_set1_epi8(1), s = _mm512_set1_epi8(1);
#define WAFER_INIT(i) __m512i a##i = _mm512_set1_epi32(i);
  WAFER_ACCS(WAFER_INIT)
#undef WAFER_INIT
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < kSteps; ++i) {
#define WAFER_STEP(i) a##i = _mm512_dpbusd_epi32(a##i, u, s);
    WAFER_ACCS(WAFER_STEP)
#undef WAFER_STEP
    WAFER_KEEP();
  }
  *ns = seconds(t0) * 1e9 / (12.0 * kSteps);
#define WAFER_SUM(i) +_mm512_reduce_add_epi32(a##i)
  return static_cast<float>(0 WAFER_ACCS(WAFER_SUM));
#undef WAFER_SUM
}

[[gnu::noinline]] float dpbf16_ns(double* ns) {
  const __m512bh x = reinterpret_cast<__m512bh>(_mm512_set1_epi16(0x3a80)), y = x;  // ~1e-3 in BF16
#define WAFER_INIT(i) __m512 a##i = _mm512_set1_ps(static_cast<float>(i));
  WAFER_ACCS(WAFER_INIT)
#undef WAFER_INIT
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < kSteps; ++i) {
#define WAFER_STEP(i) a##i = _mm512_dpbf16_ps(a##i, x, y);
    WAFER_ACCS(WAFER_STEP)
#undef WAFER_STEP
    WAFER_KEEP();
  }
  *ns = seconds(t0) * 1e9 / (12.0 * kSteps);
#define WAFER_SUM(i) +_mm512_reduce_add_ps(a##i)
  return 0.0f WAFER_ACCS(WAFER_SUM);
#undef WAFER_SUM
}

// The fastest of 7 timings: anything else on the core only slows a run down.
template <class Fn>
double best_ns(Fn fn, float* sink) {
  std::vector<double> t;
  for (int rep = 0; rep < 7; ++rep) {
    double ns = 0;
    *sink += fn(&ns);
    t.push_back(ns);
  }
  return *std::min_element(t.begin(), t.end());
}

}  // namespace

PeakRates measure_peak_rates_avx512(bool bf16) {
  float sink = 0;
  PeakRates r;
  r.fma_gmacs = 16.0 / best_ns(fma_ns, &sink);
  r.dpbusd_gmacs = 64.0 / best_ns(dpbusd_ns, &sink);
  if (bf16) r.dpbf16_gmacs = 32.0 / best_ns(dpbf16_ns, &sink);
  g_sink = sink;
  return r;
}

}  // namespace wafer::bench
