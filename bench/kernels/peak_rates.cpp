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

// Twelve accumulators of type A, each stepped by `step` kSteps times; they go through an
// empty asm each iteration so they stay in registers and the loop is not folded, and
// their sum (by `sum`) is returned so nothing is dead. *ns: time per instruction.
#define WAFER_ACCS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
template <class A, class Init, class Step, class Sum>
[[gnu::always_inline]] inline float time_chains(double* ns, Init init, Step step, Sum sum) {
#define WAFER_INIT(i) A a##i = init(i);
  WAFER_ACCS(WAFER_INIT)
#undef WAFER_INIT
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < kSteps; ++i) {
#define WAFER_STEP(i) a##i = step(a##i);
    WAFER_ACCS(WAFER_STEP)
#undef WAFER_STEP
    __asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5), "+v"(a6), "+v"(a7), "+v"(a8),
                     "+v"(a9), "+v"(a10), "+v"(a11));
  }
  *ns = seconds(t0) * 1e9 / (12.0 * kSteps);
#define WAFER_SUM(i) +sum(a##i)
  return 0.0f WAFER_ACCS(WAFER_SUM);
#undef WAFER_SUM
}
#undef WAFER_ACCS

[[gnu::noinline]] float fma_ns(double* ns) {
  const __m512 x = _mm512_set1_ps(1e-3f);
  return time_chains<__m512>(
      ns, [](int i) { return _mm512_set1_ps(static_cast<float>(i)); },
      [x](__m512 a) { return _mm512_fmadd_ps(x, x, a); }, [](__m512 a) { return _mm512_reduce_add_ps(a); });
}

[[gnu::noinline]] float dpbusd_ns(double* ns) {
  const __m512i u = _mm512_set1_epi8(1);
  return time_chains<__m512i>(
      ns, [](int i) { return _mm512_set1_epi32(i); }, [u](__m512i a) { return _mm512_dpbusd_epi32(a, u, u); },
      [](__m512i a) { return static_cast<float>(_mm512_reduce_add_epi32(a)); });
}

[[gnu::noinline]] float dpbf16_ns(double* ns) {
  const __m512bh x = reinterpret_cast<__m512bh>(_mm512_set1_epi16(0x3a80));  // ~1e-3 in BF16
  return time_chains<__m512>(
      ns, [](int i) { return _mm512_set1_ps(static_cast<float>(i)); },
      [x](__m512 a) { return _mm512_dpbf16_ps(a, x, x); }, [](__m512 a) { return _mm512_reduce_add_ps(a); });
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
