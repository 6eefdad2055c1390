#include "engine/quant/quant_basic.h"

#include <cmath>
#include <cstring>

#include "engine/quant/float16.h"

namespace wafer {
namespace {

// roundf (half away from zero) without the libm call, which dominated writing large
// synthetic models; exact for |v| < 2^31 since v - trunc(v) is exact in float.
inline int round_half_away(float v) {
  int t = static_cast<int>(v);
  float frac = v - static_cast<float>(t);
  return t + (frac >= 0.5f) - (frac <= -0.5f);  // branch-free: random data mispredicts
}

}  // namespace

void quantize_row_q8_0(const float* x, uint8_t* out, size_t n) {
  for (size_t b = 0; b < n / kQBlockElems; ++b, x += kQBlockElems, out += kQ8_0BlockBytes) {
    float amax = 0.0f;
    for (size_t j = 0; j < kQBlockElems; ++j) {
      const float a = std::fabs(x[j]);
      amax = amax > a ? amax : a;  // ggml's MAX()
    }
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    uint16_t dh = f32_to_f16(d);
    std::memcpy(out, &dh, 2);
    for (size_t j = 0; j < kQBlockElems; ++j)
      out[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(round_half_away(x[j] * id)));
  }
}

void quantize_row_q4_0(const float* x, uint8_t* out, size_t n) {
  for (size_t b = 0; b < n / kQBlockElems; ++b, x += kQBlockElems, out += kQ4_0BlockBytes) {
    float amax = 0.0f, max = 0.0f;
    for (size_t j = 0; j < kQBlockElems; ++j) {
      if (amax < std::fabs(x[j])) {
        amax = std::fabs(x[j]);
        max = x[j];
      }
    }
    const float d = max / -8.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    uint16_t dh = f32_to_f16(d);
    std::memcpy(out, &dh, 2);
    for (size_t j = 0; j < kQBlockElems / 2; ++j) {
      // Truncation toward zero after +8.5 is ggml's rounding; the value is >= 0 here.
      int lo = static_cast<int8_t>(x[j] * id + 8.5f);
      int hi = static_cast<int8_t>(x[j + 16] * id + 8.5f);
      lo = lo < 15 ? lo : 15;
      hi = hi < 15 ? hi : 15;
      out[2 + j] = static_cast<uint8_t>(lo | (hi << 4));
    }
  }
}

}  // namespace wafer
