#include "engine/kernels/amx_check.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

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
