#include "engine/kernels/amx_check.h"

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/quant/float16.h"
#include "engine/quant/quant.h"
#include "engine/quant/quant_basic.h"
#include "engine/quant/quant_kquants.h"
#include "engine/quant/quant_repack.h"
#include "engine/quant/tensor_types.h"

namespace wafer {

namespace {

// A small deterministic generator (no dependence on the standard library's engines).
float next_value(uint32_t* state) {
  *state = *state * 1664525u + 1013904223u;
  return static_cast<float>(static_cast<int32_t>(*state >> 8) - (1 << 23)) / static_cast<float>(1 << 23);
}

bool agrees_on(TensorType type, PackedMatmulFn amx, PackedMatmulFn vnni, bool exact) {
  constexpr int kRows = 40, kCols = 96, kTokens = 37;  // 3 panels (the last partial), 3 blocks, 2 tiles + 5
  uint32_t state = 12345u + static_cast<uint32_t>(type);
  std::vector<float> values(static_cast<size_t>(kRows) * kCols);
  for (float& v : values) v = next_value(&state);
  const size_t row_bytes = *wafer::row_bytes(type, kCols);
  std::vector<uint8_t> ggml(kRows * row_bytes);
  for (int r = 0; r < kRows; ++r) {
    const float* x = values.data() + static_cast<size_t>(r) * kCols;
    uint8_t* out = ggml.data() + r * row_bytes;
    if (type == TensorType::Q8_0) quantize_row_q8_0(x, out, kCols);
    else if (type == TensorType::Q4_0) quantize_row_q4_0(x, out, kCols);
    else quantize_row_q5_0_simple(x, out, kCols);
  }
  std::vector<uint8_t> packed(packed_bytes(type, kRows, kCols));
  if (packed.empty() || !repack(type, ggml.data(), kRows, kCols, packed.data())) return false;
  const PackedMatrix w{type, kRows, kCols, packed.data()};

  std::vector<float> acts(static_cast<size_t>(kTokens) * kCols);
  for (float& v : acts) v = next_value(&state);
  std::vector<uint8_t> buffer(quantized_acts_bytes(type, kCols, kTokens) + 64);
  void* aligned = buffer.data() + (64 - reinterpret_cast<uintptr_t>(buffer.data()) % 64) % 64;
  const QuantizedActs x = quantize_acts(type, acts.data(), kCols, kTokens, kCols, aligned);
  if (!x.rows) return false;

  std::vector<float> a(static_cast<size_t>(kTokens) * kRows, -1.0f), b(a.size(), -2.0f);
  amx(w, x, a.data(), kRows, 0, w.panels());
  vnni(w, x, b.data(), kRows, 0, w.panels());
  if (exact) return std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
  // Within 2^-7 x sum |w x a| (amx_bf16_kernels.h: 2^-8 for the BF16 roundings, the rest
  // for the activations' own quantization and FP32 sums), from the dequantized weights.
  std::vector<float> wf(static_cast<size_t>(kRows) * kCols);
  for (int r = 0; r < kRows; ++r)
    if (!quant::dequantize_row(type, ggml.data() + r * row_bytes, wf.data() + static_cast<size_t>(r) * kCols, kCols))
      return false;
  for (int t = 0; t < kTokens; ++t)
    for (int r = 0; r < kRows; ++r) {
      double bound = 0;
      for (int k = 0; k < kCols; ++k)
        bound += std::fabs(wf[static_cast<size_t>(r) * kCols + k] * acts[static_cast<size_t>(t) * kCols + k]);
      const double diff = std::fabs(static_cast<double>(a[t * kRows + r]) - b[t * kRows + r]);
      if (!(diff <= bound / 128 + 1e-6)) return false;  // NaN fails too
    }
  return true;
}

}  // namespace

bool amx_attend_close(AttendF16Fn tiles) {
  constexpr int kDim = 64, kPos = 100, kQueries = 37;
  uint32_t state = 777u;
  std::vector<float> keys(static_cast<size_t>(kPos) * kDim), values(keys.size()), q(static_cast<size_t>(kQueries) * kDim);
  for (float& v : keys) v = f16_to_f32(f32_to_f16(next_value(&state)));
  for (float& v : values) v = f16_to_f32(f32_to_f16(next_value(&state)));
  for (float& v : q) v = 3.0f * next_value(&state);  // scores up to ~10: peaked and flat rows
  // The cache's layouts: keys in transposed blocks of 16 positions, value rows.
  std::vector<uint16_t> k16(static_cast<size_t>((kPos + 15) / 16) * 16 * kDim), v16(values.size());
  for (int p = 0; p < kPos; ++p)
    for (int i = 0; i < kDim; ++i) {
      k16[(static_cast<size_t>(p / 16) * kDim + i) * 16 + p % 16] = f32_to_f16(keys[static_cast<size_t>(p) * kDim + i]);
      v16[static_cast<size_t>(p) * kDim + i] = f32_to_f16(values[static_cast<size_t>(p) * kDim + i]);
    }
  std::vector<int> limits(kQueries);
  for (int j = 0; j < kQueries; ++j) limits[j] = kPos - 36 + j;  // 64..100
  const float scale = 0.125f;
  std::vector<float> out(static_cast<size_t>(kQueries) * kDim, -1.0f), alone(kDim);
  std::vector<float> scratch(attend_scratch_floats(kQueries, kPos, kDim));
  tiles(q.data(), kDim, kQueries, k16.data(), v16.data(), kPos, kDim, kDim, scale, scratch.data(), out.data(), kDim,
        limits.data());
  std::vector<double> w(kPos);
  for (int j = 0; j < kQueries; ++j) {
    const int n = limits[j];
    double mx = -1e300, sum = 0;
    for (int p = 0; p < n; ++p) {
      double d = 0;
      for (int i = 0; i < kDim; ++i) d += double{q[static_cast<size_t>(j) * kDim + i]} * keys[static_cast<size_t>(p) * kDim + i];
      w[p] = d * scale;
      mx = std::max(mx, w[p]);
    }
    for (int p = 0; p < n; ++p) sum += (w[p] = std::exp(w[p] - mx));
    for (int i = 0; i < kDim; ++i) {
      double exact = 0, bound = 0;
      for (int p = 0; p < n; ++p) {
        exact += w[p] / sum * values[static_cast<size_t>(p) * kDim + i];
        bound += w[p] / sum * std::fabs(values[static_cast<size_t>(p) * kDim + i]);
      }
      const double diff = std::fabs(out[static_cast<size_t>(j) * kDim + i] - exact);
      if (!(diff <= 1e-5 * bound + 1e-6)) return false;  // NaN fails too
    }
    tiles(q.data() + static_cast<size_t>(j) * kDim, kDim, 1, k16.data(), v16.data(), n, kDim, kDim, scale,
          scratch.data(), alone.data(), kDim, nullptr);
    if (std::memcmp(alone.data(), out.data() + static_cast<size_t>(j) * kDim, sizeof(float) * kDim) != 0) return false;
  }
  return true;
}

bool amx_agrees(PackedMatmulFn amx, PackedMatmulFn vnni) {
  for (TensorType type : {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q5_0})
    if (!agrees_on(type, amx, vnni, true)) return false;
  return true;
}

bool amx_bf16_close(PackedMatmulFn bf16, PackedMatmulFn vnni) {
  for (TensorType type : {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q5_0})
    if (!agrees_on(type, bf16, vnni, false)) return false;
  return true;
}

}  // namespace wafer
