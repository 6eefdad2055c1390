// Scalar reference dot products: a weight row times an activation row already converted to
// the weight's vec_dot type. Integer parts are summed exactly as integers and scaled per
// block in float, like ggml; only the order of the float block sums differs from its SIMD
// code (an effect of ~1e-7 relative).
#include <cstring>

#include "engine/quant/quant_impl.h"

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
  const float* table = f16_table();
  return lane_sum(n, [&](int64_t i) { return table[x[i]] * table[y[i]]; });
}

float vec_dot_bf16(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const uint16_t*>(w);
  const auto* y = static_cast<const uint16_t*>(a);
  return lane_sum(n, [&](int64_t i) { return bf16_value(x[i]) * bf16_value(y[i]); });
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
    sum += static_cast<float>(lo + hi) * (f16_lookup(x[i].d) * f16_lookup(y[i].d));
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
    sum += static_cast<float>(lo + hi) * (f16_lookup(x[i].d) * f16_lookup(y[i].d));
    offsets += f16_lookup(x[i].m) * f16_lookup(y[i].s);
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
    sum += static_cast<float>(isum) * (f16_lookup(x[i].d) * f16_lookup(y[i].d));
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
    sum += static_cast<float>(isum) * (f16_lookup(x[i].d) * f16_lookup(y[i].d));
    offsets += f16_lookup(x[i].m) * f16_lookup(y[i].s);
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
    sum += static_cast<float>(isum) * (f16_lookup(x[i].d) * f16_lookup(y[i].d));
  }
  return sum;
}

namespace {

// Q4_K / Q5_K super-block: sum_j sc_j * dot(q_j, q8_j) as an integer, and the min term
// sum_j m_j * (sum of the activation quants of sub-block j) from Q8_K's 16-element sums.
// Walks the 64-element groups the way they are stored: 32 bytes of nibbles (low nibbles =
// sub-block 2g, high nibbles = sub-block 2g+1) and, for Q5_K, bits 2g / 2g+1 of qh.
template <typename Block>
float k_block_dot(const Block& x, const BlockQ8_K& y, const uint8_t* qh) {
  int isum = 0, msum = 0;
  for (int g = 0; g < 4; ++g) {
    const uint8_t* qs = x.qs + 32 * g;
    const int8_t* q8 = y.qs + 64 * g;
    int lo = 0, hi = 0;
    if (qh) {
      for (int l = 0; l < 32; ++l) {
        lo += ((qs[l] & 0xf) | (((qh[l] >> (2 * g)) & 1) << 4)) * q8[l];
        hi += ((qs[l] >> 4) | (((qh[l] >> (2 * g + 1)) & 1) << 4)) * q8[l + 32];
      }
    } else {
      for (int l = 0; l < 32; ++l) {
        lo += (qs[l] & 0xf) * q8[l];
        hi += (qs[l] >> 4) * q8[l + 32];
      }
    }
    uint8_t sc0, m0, sc1, m1;
    unpack_k_scale(2 * g, x.scales, &sc0, &m0);
    unpack_k_scale(2 * g + 1, x.scales, &sc1, &m1);
    isum += sc0 * lo + sc1 * hi;
    msum += m0 * (y.bsums[4 * g] + y.bsums[4 * g + 1]) + m1 * (y.bsums[4 * g + 2] + y.bsums[4 * g + 3]);
  }
  const float d = y.d * f16_lookup(x.d);
  const float dmin = y.d * f16_lookup(x.dmin);
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
    // Per 128-element half: for l < 32, elements l, l+32, l+64, l+96 (layout in quant.h);
    // each 16-element run has its own scale, so sum per run of 16.
    int isum = 0;
    for (int half = 0; half < 2; ++half) {
      const uint8_t* ql = x[i].ql + 64 * half;
      const uint8_t* qh = x[i].qh + 32 * half;
      const int8_t* q8 = y[i].qs + 128 * half;
      const int8_t* sc = x[i].scales + 8 * half;
      for (int run = 0; run < 2; ++run) {  // l in [16 * run, 16 * run + 16)
        int d0 = 0, d1 = 0, d2 = 0, d3 = 0;
        for (int l = 16 * run; l < 16 * run + 16; ++l) {
          d0 += (((ql[l] & 0xf) | ((qh[l] & 3) << 4)) - 32) * q8[l];
          d1 += (((ql[l + 32] & 0xf) | (((qh[l] >> 2) & 3) << 4)) - 32) * q8[l + 32];
          d2 += (((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32) * q8[l + 64];
          d3 += (((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32) * q8[l + 96];
        }
        isum += sc[run] * d0 + sc[run + 2] * d1 + sc[run + 4] * d2 + sc[run + 6] * d3;
      }
    }
    sum += (y[i].d * f16_lookup(x[i].d)) * static_cast<float>(isum);
  }
  return sum;
}

}  // namespace wafer::quant
