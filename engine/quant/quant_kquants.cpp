#include "engine/quant/quant_kquants.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/quant/float16.h"
#include "engine/quant/quant.h"

namespace wafer {
namespace {

int clamp_round(float v, int lo, int hi) { return std::clamp(static_cast<int>(std::lround(v)), lo, hi); }

// Packs 6-bit scales and mins of 8 sub-blocks into the 12 bytes of Q4_K/Q5_K (the inverse
// of quant::unpack_k_scale).
void pack_k_scales(const uint8_t* sc, const uint8_t* m, uint8_t* out) {
  for (int j = 0; j < 4; ++j) {
    out[j] = static_cast<uint8_t>((sc[j] & 63) | ((sc[j + 4] >> 4) << 6));
    out[j + 4] = static_cast<uint8_t>((m[j] & 63) | ((m[j + 4] >> 4) << 6));
    out[j + 8] = static_cast<uint8_t>((sc[j + 4] & 15) | ((m[j + 4] & 15) << 4));
  }
}

}  // namespace

void quantize_row_q5_0_simple(const float* x, uint8_t* out, size_t n) {
  auto* y = reinterpret_cast<quant::BlockQ5_0*>(out);
  for (size_t i = 0; i < n / 32; ++i, x += 32) {
    float amax = 0, max = 0;  // the value of largest magnitude, sign kept
    for (int j = 0; j < 32; ++j)
      if (std::fabs(x[j]) > amax) amax = std::fabs(max = x[j]);
    const float d = max / -16, id = d != 0 ? 1 / d : 0;
    uint32_t qh = 0;
    std::memset(y[i].qs, 0, sizeof y[i].qs);
    for (int j = 0; j < 32; ++j) {
      const int q = clamp_round(x[j] * id + 16, 0, 31);
      y[i].qs[j % 16] |= static_cast<uint8_t>((q & 15) << (j < 16 ? 0 : 4));
      qh |= static_cast<uint32_t>(q >> 4) << j;
    }
    std::memcpy(y[i].qh, &qh, 4);
    y[i].d = f32_to_f16(d);
  }
}

void quantize_row_q4_k_simple(const float* x, uint8_t* out, size_t n) {
  auto* y = reinterpret_cast<quant::BlockQ4_K*>(out);
  for (size_t i = 0; i < n / 256; ++i, x += 256) {
    float scale[8], min[8], max_scale = 0, max_min = 0;
    for (int s = 0; s < 8; ++s) {
      const float* v = x + 32 * s;
      float lo = std::min(0.f, *std::min_element(v, v + 32)), hi = *std::max_element(v, v + 32);
      scale[s] = (hi - lo) / 15;
      min[s] = -lo;
      max_scale = std::max(max_scale, scale[s]);
      max_min = std::max(max_min, min[s]);
    }
    const float d = max_scale / 63, dmin = max_min / 63;
    uint8_t sc[8], m[8];
    for (int s = 0; s < 8; ++s) {
      sc[s] = static_cast<uint8_t>(d > 0 ? clamp_round(scale[s] / d, 0, 63) : 0);
      m[s] = static_cast<uint8_t>(dmin > 0 ? clamp_round(min[s] / dmin, 0, 63) : 0);
    }
    y[i].d = f32_to_f16(d);
    y[i].dmin = f32_to_f16(dmin);
    pack_k_scales(sc, m, y[i].scales);
    // Quantize against the scales as stored (after rounding to half and 6 bits).
    const float dd = f16_to_f32(y[i].d), dm = f16_to_f32(y[i].dmin);
    std::memset(y[i].qs, 0, sizeof y[i].qs);
    for (int e = 0; e < 256; ++e) {
      const int s = e / 32;
      const float step = dd * sc[s];
      const int q = step > 0 ? clamp_round((x[e] + dm * m[s]) / step, 0, 15) : 0;
      const int group = e / 64, l = e % 32;
      y[i].qs[32 * group + l] |= static_cast<uint8_t>(q << (e % 64 < 32 ? 0 : 4));
    }
  }
}

void quantize_row_q6_k_simple(const float* x, uint8_t* out, size_t n) {
  auto* y = reinterpret_cast<quant::BlockQ6_K*>(out);
  for (size_t i = 0; i < n / 256; ++i, x += 256) {
    float scale[16], amax_scale = 0;
    for (int s = 0; s < 16; ++s) {
      float amax = 0;
      for (int j = 0; j < 16; ++j) amax = std::max(amax, std::fabs(x[16 * s + j]));
      scale[s] = amax / 31;
      amax_scale = std::max(amax_scale, scale[s]);
    }
    const float d = amax_scale / 127;
    y[i].d = f32_to_f16(d);
    const float dd = f16_to_f32(y[i].d);
    std::memset(y[i].ql, 0, sizeof y[i].ql);
    std::memset(y[i].qh, 0, sizeof y[i].qh);
    for (int s = 0; s < 16; ++s) y[i].scales[s] = static_cast<int8_t>(d > 0 ? clamp_round(scale[s] / d, -128, 127) : 0);
    for (int e = 0; e < 256; ++e) {
      const float step = dd * y[i].scales[e / 16];
      const int q = step != 0 ? clamp_round(x[e] / step + 32, 0, 63) : 32;
      // Element e's place (quant.h): half, quarter, l -> ql nibble and qh bit pair.
      const int half = e / 128, r = e % 128, quarter = r / 32, l = r % 32;
      y[i].ql[64 * half + l + 32 * (quarter & 1)] |= static_cast<uint8_t>((q & 15) << (quarter >= 2 ? 4 : 0));
      y[i].qh[32 * half + l] |= static_cast<uint8_t>((q >> 4) << (2 * quarter));
    }
  }
}

}  // namespace wafer
