// The kernel table for AVX2 + FMA + F16C (compiled with -mavx2 -mfma -mf16c), for CPUs
// without AVX-512: 8 lanes = half a 16-row panel per vector, vpmaddubsw + vpmaddwd for the
// int8 dot products, token tiles of 4 (16 vector registers) for prefill; the prefill of the
// 32-column formats has its own micro-tile (prefill_avx2.h).
#include <immintrin.h>

#include "engine/kernels/avx2/prefill_avx2.h"
#include "engine/kernels/avx2/traits_avx2.h"
#include "engine/kernels/isa_tables.h"
#include "engine/kernels/simd/make_kernels.h"

namespace wafer::isa_tables {
namespace {

using V = Avx2Traits<false>;
using Impl = simd::PackedImpl<V>;

// Tokens [t0, n_tokens) of x.
QuantizedActs tokens_from(const QuantizedActs& x, int t0) {
  QuantizedActs r = x;
  r.rows += static_cast<size_t>(t0) * x.row_bytes;
  if (r.d) r.d += t0 * x.blocks();
  if (r.sums) r.sums += t0 * x.blocks();
  r.n_tokens -= t0;
  return r;
}

// The whole token tiles of a Q8_0/Q4_0/Q5_0 prefill through LegacyPrefill, the rest (and
// every other case) through the shared kernel: the same bits either way.
struct Avx2Matmul {
  template <int kPf>
  static void matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t pb,
                     int64_t pe) {
    const int done = kernels_avx2::LegacyPrefill::run<Impl>(w, x, y, y_stride, pb, pe);
    if (done == 0)
      Impl::matmul<kPf>(w, x, y, y_stride, pb, pe);
    else if (done < x.n_tokens)
      Impl::matmul<kPf>(w, tokens_from(x, done), y + done * y_stride, y_stride, pb, pe);
  }
};

}  // namespace

constinit const SimdKernels avx2 = simd::make_kernels<V, Avx2Matmul>(KernelIsa::Avx2, "avx2", quantize_avx2);

}  // namespace wafer::isa_tables
