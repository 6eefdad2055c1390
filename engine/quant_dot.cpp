// Scalar reference dot products: a weight row times an activation row already converted to
// the weight's vec_dot type. Integer parts are summed exactly as integers and scaled per
// block in float, like ggml; only the order of the float block sums differs from its SIMD
// code (an effect of ~1e-7 relative).
#include <cstring>

#include "engine/quant_impl.h"

namespace wafer::quant {

namespace {

// Eight independent partial sums, like a SIMD register's lanes: shorter dependency chains
// (so the compiler can vectorize) and a rounding error closer to ggml's.
template <typename Load>
float lane_sum(int64_t n, Load load) {
  float acc[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) acc[l] += load(i + l);
  float tail = 0;
  for (; i < n; ++i) tail += load(i);
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail;
}

uint32_t load_qh(const uint8_t* qh) {
  uint32_t v;
  std::memcpy(&v, qh, sizeof v);
  return v;
}

// Sum over one 32-element block of the weight's integer values times the activation quants.
template <typename WeightValue>
int block_dot(const int8_t* q8, WeightValue value) {
  int sum = 0;
  for (int j = 0; j < kQK; ++j) sum += value(j) * q8[j];
  return sum;
}

}  // namespace

float vec_dot_f32(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const float*>(w);
  const auto* y = static_cast<const float*>(a);
  return lane_sum(n, [&](int64_t i) { return x[i] * y[i]; });
}

float vec_dot_f16(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const uint16_t*>(w);
  const auto* y = static_cast<const uint16_t*>(a);
  return lane_sum(n, [&](int64_t i) { return f16_to_f32(x[i]) * f16_to_f32(y[i]); });
}

float vec_dot_bf16(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const uint16_t*>(w);
  const auto* y = static_cast<const uint16_t*>(a);
  return lane_sum(n, [&](int64_t i) { return bf16_to_f32(x[i]) * bf16_to_f32(y[i]); });
}

float vec_dot_q4_0_q8_0(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const BlockQ4_0*>(w);
  const auto* y = static_cast<const BlockQ8_0*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / kQK; ++i) {
    int lo = 0, hi = 0;
    for (int j = 0; j < kQK / 2; ++j) {
      lo += ((x[i].qs[j] & 0xf) - 8) * y[i].qs[j];
      hi += ((x[i].qs[j] >> 4) - 8) * y[i].qs[j + kQK / 2];
    }
    sum += static_cast<float>(lo + hi) * (f16_to_f32(x[i].d) * f16_to_f32(y[i].d));
  }
  return sum;
}

float vec_dot_q4_1_q8_1(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const BlockQ4_1*>(w);
  const auto* y = static_cast<const BlockQ8_1*>(a);
  float sum = 0, offsets = 0;
  for (int64_t i = 0; i < n / kQK; ++i) {
    int lo = 0, hi = 0;
    for (int j = 0; j < kQK / 2; ++j) {
      lo += (x[i].qs[j] & 0xf) * y[i].qs[j];
      hi += (x[i].qs[j] >> 4) * y[i].qs[j + kQK / 2];
    }
    sum += static_cast<float>(lo + hi) * (f16_to_f32(x[i].d) * f16_to_f32(y[i].d));
    offsets += f16_to_f32(x[i].m) * f16_to_f32(y[i].s);
  }
  return sum + offsets;
}

float vec_dot_q5_0_q8_0(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const BlockQ5_0*>(w);
  const auto* y = static_cast<const BlockQ8_0*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / kQK; ++i) {
    const uint32_t qh = load_qh(x[i].qh);
    const int isum = block_dot(y[i].qs, [&](int j) { return q5_value(x[i].qs, qh, j) - 16; });
    sum += static_cast<float>(isum) * (f16_to_f32(x[i].d) * f16_to_f32(y[i].d));
  }
  return sum;
}

float vec_dot_q5_1_q8_1(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const BlockQ5_1*>(w);
  const auto* y = static_cast<const BlockQ8_1*>(a);
  float sum = 0, offsets = 0;
  for (int64_t i = 0; i < n / kQK; ++i) {
    const uint32_t qh = load_qh(x[i].qh);
    const int isum = block_dot(y[i].qs, [&](int j) { return q5_value(x[i].qs, qh, j); });
    sum += static_cast<float>(isum) * (f16_to_f32(x[i].d) * f16_to_f32(y[i].d));
    offsets += f16_to_f32(x[i].m) * f16_to_f32(y[i].s);
  }
  return sum + offsets;
}

float vec_dot_q8_0_q8_0(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const BlockQ8_0*>(w);
  const auto* y = static_cast<const BlockQ8_0*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / kQK; ++i) {
    int isum = 0;
    for (int j = 0; j < kQK; ++j) isum += x[i].qs[j] * y[i].qs[j];
    sum += static_cast<float>(isum) * (f16_to_f32(x[i].d) * f16_to_f32(y[i].d));
  }
  return sum;
}

namespace {

// Q4_K / Q5_K super-block: sum_j sc_j * dot(q_j, q8_j) as an integer, and the min term
// sum_j m_j * (sum of the activation quants of sub-block j) from Q8_K's 16-element sums.
template <typename Block>
float k_block_dot(const Block& x, const BlockQ8_K& y, const uint8_t* qh) {
  int isum = 0, msum = 0;
  for (int sub = 0; sub < 8; ++sub) {
    uint8_t sc, m;
    unpack_k_scale(sub, x.scales, &sc, &m);
    int dot = 0;
    for (int l = 0; l < 32; ++l) {
      const int i = sub * 32 + l;
      dot += qk_value(x.qs, qh, i) * y.qs[i];
    }
    isum += sc * dot;
    msum += m * (y.bsums[2 * sub] + y.bsums[2 * sub + 1]);
  }
  const float d = y.d * f16_to_f32(x.d);
  const float dmin = y.d * f16_to_f32(x.dmin);
  return d * static_cast<float>(isum) - dmin * static_cast<float>(msum);
}

}  // namespace

float vec_dot_q4_k_q8_k(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const BlockQ4_K*>(w);
  const auto* y = static_cast<const BlockQ8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / kQK_K; ++i) sum += k_block_dot(x[i], y[i], nullptr);
  return sum;
}

float vec_dot_q5_k_q8_k(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const BlockQ5_K*>(w);
  const auto* y = static_cast<const BlockQ8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / kQK_K; ++i) sum += k_block_dot(x[i], y[i], x[i].qh);
  return sum;
}

float vec_dot_q6_k_q8_k(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const BlockQ6_K*>(w);
  const auto* y = static_cast<const BlockQ8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / kQK_K; ++i) {
    int isum = 0;
    for (int sub = 0; sub < kQK_K / 16; ++sub) {
      int dot = 0;
      for (int l = 0; l < 16; ++l) {
        const int e = sub * 16 + l;
        dot += (q6_value(x[i], e) - 32) * y[i].qs[e];
      }
      isum += x[i].scales[sub] * dot;
    }
    sum += (y[i].d * f16_to_f32(x[i].d)) * static_cast<float>(isum);
  }
  return sum;
}

}  // namespace wafer::quant
