// The float parts of the forward pass that cost real time once the matmuls are fast,
// written once over the same vector traits as packed_kernels.h: attention of one query
// head over the cached keys/values (dot products, softmax, weighted sum of values) and
// SwiGLU. Both need exp() for thousands of values per token, so V::exp is a vectorized
// exponential (range reduction to 2^n * e^r, |r| <= ln2/2, a degree-6 polynomial;
// relative error ~2e-7, like ggml's own SIMD expf).
//
// V additionally provides: loadf(p), storef(p, v), maxf(a, b), subf, divf, reduce_add(v),
// reduce_max(v), exp(v).
#pragma once

#include <cmath>
#include <cstdint>

namespace wafer::simd {

template <class V>
struct FloatImpl {
  using F = typename V::F;
  static constexpr int L = V::kLanes;

  // e^x for every lane (x clamped to the float range of e^x).
  static F exp(F x) { return V::exp(x); }

  // out[0..dv) = softmax(scale * q.k_p over p < n_pos) weighted sum of v_p. keys and
  // values are n_pos rows of dk / dv floats; scores has room for n_pos floats. dk and dv
  // are multiples of L (the caller checks).
  static void attend(const float* q, const float* keys, const float* values, int n_pos, int dk, int dv, float scale,
                     float* scores, float* out) {
    float mx = -INFINITY;
    for (int p = 0; p < n_pos; ++p) {
      const float* k = keys + static_cast<int64_t>(p) * dk;
      F acc0 = V::zero_f(), acc1 = V::zero_f();
      int i = 0;
      for (; i + 2 * L <= dk; i += 2 * L) {
        acc0 = V::fmadd(V::loadf(q + i), V::loadf(k + i), acc0);
        acc1 = V::fmadd(V::loadf(q + i + L), V::loadf(k + i + L), acc1);
      }
      if (i < dk) acc0 = V::fmadd(V::loadf(q + i), V::loadf(k + i), acc0);
      const float s = V::reduce_add(V::add_f(acc0, acc1)) * scale;
      scores[p] = s;
      mx = s > mx ? s : mx;
    }
    const F vmax = V::set1f(mx);
    F vsum = V::zero_f();
    int p = 0;
    for (; p + L <= n_pos; p += L) {
      F e = exp(V::subf(V::loadf(scores + p), vmax));
      V::storef(scores + p, e);
      vsum = V::add_f(vsum, e);
    }
    float sum = V::reduce_add(vsum);
    for (; p < n_pos; ++p) {
      scores[p] = std::exp(scores[p] - mx);
      sum += scores[p];
    }
    const F inv = V::set1f(1.0f / sum);
    // Weighted sum of the values, up to 8 output vectors held in registers per pass.
    for (int i0 = 0; i0 < dv; i0 += 8 * L) {
      const float* v = values + i0;
      switch ((dv - i0) / L < 8 ? (dv - i0) / L : 8) {
        case 1: weighted_sum<1>(scores, v, n_pos, dv, inv, out + i0); break;
        case 2: weighted_sum<2>(scores, v, n_pos, dv, inv, out + i0); break;
        case 3: weighted_sum<3>(scores, v, n_pos, dv, inv, out + i0); break;
        case 4: weighted_sum<4>(scores, v, n_pos, dv, inv, out + i0); break;
        case 5: weighted_sum<5>(scores, v, n_pos, dv, inv, out + i0); break;
        case 6: weighted_sum<6>(scores, v, n_pos, dv, inv, out + i0); break;
        case 7: weighted_sum<7>(scores, v, n_pos, dv, inv, out + i0); break;
        default: weighted_sum<8>(scores, v, n_pos, dv, inv, out + i0); break;
      }
    }
  }

  // out[0..NV*L) = inv * sum_p w[p] * v[p * stride + 0..NV*L).
  template <int NV>
  static void weighted_sum(const float* w, const float* v, int n_pos, int stride, F inv, float* out) {
    F acc[NV];
    _Pragma("GCC unroll 8")
    for (int j = 0; j < NV; ++j) acc[j] = V::zero_f();
    for (int p = 0; p < n_pos; ++p) {
      const F wp = V::set1f(w[p]);
      const float* row = v + static_cast<int64_t>(p) * stride;
      _Pragma("GCC unroll 8")
      for (int j = 0; j < NV; ++j) acc[j] = V::fmadd(wp, V::loadf(row + j * L), acc[j]);
    }
    _Pragma("GCC unroll 8")
    for (int j = 0; j < NV; ++j) V::storef(out + j * L, V::mul(acc[j], inv));
  }

  // g[i] = silu(g[i]) * u[i] = g / (1 + e^-g) * u.
  static void swiglu(float* g, const float* u, int64_t n) {
    const F one = V::set1f(1.0f);
    int64_t i = 0;
    for (; i + L <= n; i += L) {
      const F x = V::loadf(g + i);
      const F silu = V::divf(x, V::add_f(one, exp(V::subf(V::zero_f(), x))));
      V::storef(g + i, V::mul(silu, V::loadf(u + i)));
    }
    for (; i < n; ++i) g[i] = g[i] / (1.0f + std::exp(-g[i])) * u[i];
  }
};

}  // namespace wafer::simd
