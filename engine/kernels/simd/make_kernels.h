// A kernel table (SimdKernels) made from the shared templates for one vector traits type V.
// Each per-ISA file instantiates it once, under its own compile flags, into a constant table
// (isa_tables.h): the functions in the table are the template instantiations themselves,
// with no forwarding function between the dispatcher and the kernel.
//
// Matmul is the type whose `template <int kPf> static matmul(...)` fills the four matmul
// fields (kPrefetchNone, kPrefetchFar, kPrefetchNear, kPrefetchL2): PackedImpl<V> unless an ISA wraps it
// (AVX2's own prefill micro-tile).
#pragma once

#include "engine/kernels/dispatch.h"
#include "engine/kernels/simd/attend_q8_kernels.h"
#include "engine/kernels/simd/float_kernels.h"
#include "engine/kernels/simd/packed_kernels.h"

namespace wafer::simd {

// The matmul and its prefetch twins only. The other fields stay null, for a table that
// takes them from the one it extends (dispatch.cpp).
template <class Matmul>
constexpr SimdKernels make_matmul_kernels(KernelIsa isa, const char* name) {
  return SimdKernels{
      .isa = isa,
      .name = name,
      .matmul = &Matmul::template matmul<kPrefetchNone>,
      .matmul_prefetch = &Matmul::template matmul<kPrefetchFar>,
      .matmul_prefetch_near = &Matmul::template matmul<kPrefetchNear>,
      .matmul_prefetch_l2 = &Matmul::template matmul<kPrefetchL2>,
  };
}

// The int8 kernels: the matmuls and attention over Q8_0 keys.
template <class V, class Matmul = PackedImpl<V>>
constexpr SimdKernels make_int8_kernels(KernelIsa isa, const char* name) {
  SimdKernels k = make_matmul_kernels<Matmul>(isa, name);
  k.attend_q8 = &AttendQ8Impl<V>::attend;
  return k;
}

// A whole table: the int8 kernels, the float kernels over V and the given activation
// quantizer (a vectorized one, or quantize_act_rows, the scalar reference).
template <class V, class Matmul = PackedImpl<V>>
constexpr SimdKernels make_kernels(KernelIsa isa, const char* name, QuantizeActsFn quantize) {
  SimdKernels k = make_int8_kernels<V, Matmul>(isa, name);
  k.quantize = quantize;
  k.attend = &FloatImpl<V>::template attend<float>;
  k.attend_f16 = &FloatImpl<V>::template attend<uint16_t>;
  k.swiglu = &FloatImpl<V>::swiglu;
  k.add_rms_norm = &FloatImpl<V>::add_rms_norm;
  k.rope_neox = &FloatImpl<V>::rope_neox;
  return k;
}

}  // namespace wafer::simd
