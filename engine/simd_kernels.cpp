#include "engine/simd_kernels.h"

#include <cstring>

#include "engine/cpu_features.h"
#include "engine/quant.h"

namespace wafer {

// Defined in kernels/avx2/kernels_avx2.cpp and kernels/avx512/kernels_avx512.cpp (each
// compiled with its own -m flags; never called unless CPUID allows).
#define WAFER_DECLARE_ISA(ns)                                                                              \
  namespace ns {                                                                                           \
  void packed_matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride,             \
                     int64_t panel_begin, int64_t panel_end);                                              \
  void attend(const float* q, const float* keys, const float* values, int n_pos, int dk, int dv, float scale, \
              float* scores, float* out);                                                                  \
  void swiglu(float* g, const float* u, int64_t n);                                                        \
  }
WAFER_DECLARE_ISA(kernels_avx2)
WAFER_DECLARE_ISA(kernels_avx512)
#undef WAFER_DECLARE_ISA

namespace {

size_t round64(size_t n) { return (n + 63) & ~size_t{63}; }

struct ActsShape {
  TensorType type;
  size_t row_bytes;
  int64_t blocks;
};

bool acts_shape(TensorType act_type, int64_t cols, ActsShape* out) {
  if (act_type != TensorType::Q8_0 && act_type != TensorType::Q8_K) return false;
  auto rb = row_bytes(act_type, static_cast<uint64_t>(cols));
  if (!rb || cols <= 0) return false;
  *out = {act_type, *rb, act_type == TensorType::Q8_K ? cols / 256 : cols / 32};
  return true;
}

// Fills the Q8_0 side arrays (float scales, quant sums) of rows already in place.
QuantizedActs finish(const ActsShape& s, const uint8_t* rows, int n_tokens, int64_t cols, uint8_t* aux) {
  QuantizedActs a;
  a.type = s.type;
  a.cols = cols;
  a.n_tokens = n_tokens;
  a.rows = rows;
  a.row_bytes = s.row_bytes;
  if (s.type != TensorType::Q8_0) return a;
  const size_t n = static_cast<size_t>(n_tokens) * static_cast<size_t>(s.blocks);
  auto* d = reinterpret_cast<float*>(aux);
  auto* sums = reinterpret_cast<int32_t*>(aux + round64(n * sizeof(float)));
  for (int t = 0; t < n_tokens; ++t) {
    const auto* blocks = reinterpret_cast<const quant::BlockQ8_0*>(rows + static_cast<size_t>(t) * s.row_bytes);
    for (int64_t b = 0; b < s.blocks; ++b) {
      int32_t sum = 0;
      for (int j = 0; j < quant::kQK; ++j) sum += blocks[b].qs[j];
      d[t * s.blocks + b] = quant::fp16_to_fp32(blocks[b].d);
      sums[t * s.blocks + b] = sum;
    }
  }
  a.d = d;
  a.sums = sums;
  return a;
}

}  // namespace

size_t quantized_acts_bytes(TensorType weight_type, int64_t cols, int n_tokens) {
  ActsShape s;
  if (!is_packable(weight_type) || !acts_shape(quant::vec_dot_type(weight_type), cols, &s) || n_tokens < 0)
    return 0;
  size_t n = static_cast<size_t>(n_tokens);
  size_t bytes = round64(n * s.row_bytes);
  if (s.type == TensorType::Q8_0) {
    bytes += round64(n * static_cast<size_t>(s.blocks) * sizeof(float));
    bytes += round64(n * static_cast<size_t>(s.blocks) * sizeof(int32_t));
  }
  return bytes;
}

QuantizedActs quantize_acts(TensorType weight_type, const float* x, int64_t x_stride, int n_tokens,
                            int64_t cols, void* buffer) {
  ActsShape s;
  if (!acts_shape(quant::vec_dot_type(weight_type), cols, &s)) return {};
  auto* rows = static_cast<uint8_t*>(buffer);
  for (int t = 0; t < n_tokens; ++t)
    quant::quantize_activations(s.type, x + t * x_stride, rows + static_cast<size_t>(t) * s.row_bytes, cols);
  return finish(s, rows, n_tokens, cols, rows + round64(static_cast<size_t>(n_tokens) * s.row_bytes));
}

QuantizedActs wrap_quantized_acts(TensorType act_type, const void* rows, int n_tokens, int64_t cols, void* aux) {
  ActsShape s;
  if (!acts_shape(act_type, cols, &s)) return {};
  return finish(s, static_cast<const uint8_t*>(rows), n_tokens, cols, static_cast<uint8_t*>(aux));
}

const SimdKernels* simd_kernels(KernelIsa isa) {
  static const SimdKernels kAvx2{KernelIsa::Avx2, "avx2", kernels_avx2::packed_matmul, kernels_avx2::attend,
                                 kernels_avx2::swiglu};
  static const SimdKernels kAvx512{KernelIsa::Avx512, "avx512-vnni", kernels_avx512::packed_matmul,
                                   kernels_avx512::attend, kernels_avx512::swiglu};
  const CpuFeatures& cpu = cpu_features();
  switch (isa) {
    case KernelIsa::Avx2:
      return cpu.has_avx2_kernels() ? &kAvx2 : nullptr;
    case KernelIsa::Avx512:
      return cpu.has_avx512_kernels() ? &kAvx512 : nullptr;
  }
  return nullptr;
}

const SimdKernels* best_simd_kernels() {
  if (const SimdKernels* k = simd_kernels(KernelIsa::Avx512)) return k;
  return simd_kernels(KernelIsa::Avx2);
}

}  // namespace wafer
