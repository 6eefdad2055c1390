// Scalar dequantization of weight rows, one function per block format (layouts in quant.h).
// Products are formed as ggml does (scale * q in float), so an embedding row looked up here
// is bit-identical to llama.cpp's get_rows.
#include <cstring>

#include "engine/quant/quant_impl.h"

namespace wafer::quant {

void dequantize_f32(const void* src, float* dst, int64_t n) {
  std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
}

void dequantize_f16(const void* src, float* dst, int64_t n) {
  const auto* h = static_cast<const uint16_t*>(src);
  const float* table = f16_table();
  for (int64_t i = 0; i < n; ++i) dst[i] = table[h[i]];
}

void dequantize_bf16(const void* src, float* dst, int64_t n) {
  const auto* h = static_cast<const uint16_t*>(src);
  for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_f32(h[i]);
}

void dequantize_q4_0(const void* src, float* dst, int64_t n) {
  const auto* b = static_cast<const BlockQ4_0*>(src);
  for (int64_t i = 0; i < n / kQK; ++i, dst += kQK) {
    const float d = f16_to_f32(b[i].d);
    for (int j = 0; j < kQK / 2; ++j) {
      dst[j] = static_cast<float>((b[i].qs[j] & 0xf) - 8) * d;
      dst[j + kQK / 2] = static_cast<float>((b[i].qs[j] >> 4) - 8) * d;
    }
  }
}

void dequantize_q4_1(const void* src, float* dst, int64_t n) {
  const auto* b = static_cast<const BlockQ4_1*>(src);
  for (int64_t i = 0; i < n / kQK; ++i, dst += kQK) {
    const float d = f16_to_f32(b[i].d), m = f16_to_f32(b[i].m);
    for (int j = 0; j < kQK / 2; ++j) {
      dst[j] = static_cast<float>(b[i].qs[j] & 0xf) * d + m;
      dst[j + kQK / 2] = static_cast<float>(b[i].qs[j] >> 4) * d + m;
    }
  }
}

void dequantize_q5_0(const void* src, float* dst, int64_t n) {
  const auto* b = static_cast<const BlockQ5_0*>(src);
  for (int64_t i = 0; i < n / kQK; ++i, dst += kQK) {
    const float d = f16_to_f32(b[i].d);
    uint32_t qh;
    std::memcpy(&qh, b[i].qh, sizeof qh);
    for (int j = 0; j < kQK; ++j) dst[j] = static_cast<float>(q5_value(b[i].qs, qh, j) - 16) * d;
  }
}

void dequantize_q5_1(const void* src, float* dst, int64_t n) {
  const auto* b = static_cast<const BlockQ5_1*>(src);
  for (int64_t i = 0; i < n / kQK; ++i, dst += kQK) {
    const float d = f16_to_f32(b[i].d), m = f16_to_f32(b[i].m);
    uint32_t qh;
    std::memcpy(&qh, b[i].qh, sizeof qh);
    for (int j = 0; j < kQK; ++j) dst[j] = static_cast<float>(q5_value(b[i].qs, qh, j)) * d + m;
  }
}

void dequantize_q8_0(const void* src, float* dst, int64_t n) {
  const auto* b = static_cast<const BlockQ8_0*>(src);
  for (int64_t i = 0; i < n / kQK; ++i, dst += kQK) {
    const float d = f16_to_f32(b[i].d);
    for (int j = 0; j < kQK; ++j) dst[j] = static_cast<float>(b[i].qs[j]) * d;
  }
}

namespace {

// Q4_K and Q5_K share everything but the fifth bit (qh == nullptr for Q4_K).
void dequantize_k_block(uint16_t d16, uint16_t dmin16, const uint8_t* scales, const uint8_t* qs,
                        const uint8_t* qh, float* dst) {
  const float d = f16_to_f32(d16), dmin = f16_to_f32(dmin16);
  for (int sub = 0; sub < 8; ++sub) {
    uint8_t sc, m;
    unpack_k_scale(sub, scales, &sc, &m);
    const float scale = d * sc, offset = dmin * m;
    for (int l = 0; l < 32; ++l) {
      const int i = sub * 32 + l;
      dst[i] = scale * static_cast<float>(qk_value(qs, qh, i)) - offset;
    }
  }
}

}  // namespace

void dequantize_q4_k(const void* src, float* dst, int64_t n) {
  const auto* b = static_cast<const BlockQ4_K*>(src);
  for (int64_t i = 0; i < n / kQK_K; ++i, dst += kQK_K)
    dequantize_k_block(b[i].d, b[i].dmin, b[i].scales, b[i].qs, nullptr, dst);
}

void dequantize_q5_k(const void* src, float* dst, int64_t n) {
  const auto* b = static_cast<const BlockQ5_K*>(src);
  for (int64_t i = 0; i < n / kQK_K; ++i, dst += kQK_K)
    dequantize_k_block(b[i].d, b[i].dmin, b[i].scales, b[i].qs, b[i].qh, dst);
}

void dequantize_q6_k(const void* src, float* dst, int64_t n) {
  const auto* b = static_cast<const BlockQ6_K*>(src);
  for (int64_t i = 0; i < n / kQK_K; ++i, dst += kQK_K) {
    const float d = f16_to_f32(b[i].d);
    for (int e = 0; e < kQK_K; ++e)
      dst[e] = d * static_cast<float>(b[i].scales[e / 16]) * static_cast<float>(q6_value(b[i], e) - 32);
  }
}

}  // namespace wafer::quant
