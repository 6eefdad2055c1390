// The float parts of the forward pass that cost real time once the matmuls are fast,
// written once over the same vector traits as packed_kernels.h: attention of one query
// head over the cached keys/values (dot products, softmax, weighted sum of values) and
// SwiGLU. Both need exp() for thousands of values per token, so V::exp is a vectorized
// exponential (range reduction to 2^n * e^r, |r| <= ln2/2, a degree-6 polynomial;
// relative error ~2e-7, like ggml's own SIMD expf).
//
// V additionally provides: loadf(p), storef(p, v), maxf, minf, subf, divf, reduce_add(v),
// round_nearest(v), scale_pow2(p, n) (p * 2^n for integral n in [-126, 128]) and
// reduce16_keys(acc, out) (16 keys' 16-lane sums by halving, see attend).
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>

namespace wafer::simd {

template <class V>
struct FloatImpl {
  using F = typename V::F;
  static constexpr int L = V::kLanes;

  // e^x for every lane: x clamped to the float range of e^x, then e^x = 2^n * e^r with
  // n = round(x / ln2), r = x - n ln2 (ln2 in two parts for precision), e^r by Taylor
  // polynomial of degree 6 (|r| <= ln2 / 2: relative error ~2e-7).
  static F exp(F x) {
    x = V::maxf(V::minf(x, V::set1f(88.7f)), V::set1f(-87.3f));
    const F n = V::round_nearest(V::mul(x, V::set1f(1.44269504f)));
    F r = V::fnmadd(n, V::set1f(0.693359375f), x);
    r = V::fnmadd(n, V::set1f(-2.12194440e-4f), r);
    F p = V::set1f(1.0f / 720);
    _Pragma("GCC unroll 8")
    for (float c : {1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f}) p = V::fmadd(p, r, V::set1f(c));
    return V::scale_pow2(p, n);
  }

  // out[0..dv) = softmax(scale * q.k_p over p < n_pos) weighted sum of v_p. keys and
  // values are n_pos rows of dk / dv floats; scores has room for n_pos floats. dk and dv
  // are multiples of 16 (the caller checks). Sums are formed the way ggml's AVX-512 code
  // forms them (16 float lanes, lane i % 16, fused multiply-adds, halving reduction), so
  // the results track llama.cpp's to float rounding of the exp alone.
  static void attend(const float* q, const float* keys, const float* values, int n_pos, int dk, int dv, float scale,
                     float* scores, float* out) {
    constexpr int kVecs = 16 / L;  // vectors per 16 lanes
    float mx = -INFINITY;
    int p0 = 0;
    // Blocks of 16 keys: 16 independent FMA chains, then one shared transposing reduction
    // (V::reduce16_keys) instead of 16 separate horizontal sums.
    for (; p0 + 16 <= n_pos; p0 += 16) {
      F acc[16 * kVecs];
      for (int j = 0; j < 16 * kVecs; ++j) acc[j] = V::zero_f();
      const float* kb = keys + static_cast<int64_t>(p0) * dk;
      for (int i = 0; i < dk; i += 16)
        for (int j = 0; j < kVecs; ++j) {
          const F qv = V::loadf(q + i + j * L);
          _Pragma("GCC unroll 16")
          for (int key = 0; key < 16; ++key)
            acc[key * kVecs + j] = V::fmadd(V::loadf(kb + static_cast<int64_t>(key) * dk + i + j * L), qv,
                                            acc[key * kVecs + j]);
        }
      V::reduce16_keys(acc, scores + p0);
      for (int key = 0; key < 16; ++key) {
        const float s = scores[p0 + key] * scale;
        scores[p0 + key] = s;
        mx = s > mx ? s : mx;
      }
    }
    for (int p = p0; p < n_pos; ++p) {
      const float* k = keys + static_cast<int64_t>(p) * dk;
      F acc[kVecs];
      for (int j = 0; j < kVecs; ++j) acc[j] = V::zero_f();
      for (int i = 0; i < dk; i += 16)
        for (int j = 0; j < kVecs; ++j) acc[j] = V::fmadd(V::loadf(k + i + j * L), V::loadf(q + i + j * L), acc[j]);
      const float s = reduce16(acc) * scale;
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
    for (p = 0; p + L <= n_pos; p += L) V::storef(scores + p, V::mul(V::loadf(scores + p), inv));
    for (; p < n_pos; ++p) scores[p] *= 1.0f / sum;
    // out[i] = sum_p scores[p] v_p[i] with position p in lane p % 16: 16 partial rows.
    constexpr int kMaxDv = 256;
    if (dv > kMaxDv) return weighted_sum_plain(scores, values, n_pos, dv, out);
    alignas(64) float part[16 * kMaxDv];
    const int lanes = n_pos < 16 ? n_pos : 16;
    int lane = 0;
    if (dv == 4 * L)  // the common head width (64 floats on AVX-512): two lanes at a time, 8 chains
      for (; lane + 2 <= lanes; lane += 2) lane_pair_sum(scores, values, lane, n_pos, dv, part + lane * dv);
    for (; lane < lanes; ++lane) {
      for (int i = 0; i < dv; i += 4 * L) {
        switch ((dv - i) / L < 4 ? (dv - i) / L : 4) {
          case 1: lane_sum<1>(scores, values + i, lane, n_pos, dv, part + lane * dv + i); break;
          case 2: lane_sum<2>(scores, values + i, lane, n_pos, dv, part + lane * dv + i); break;
          case 3: lane_sum<3>(scores, values + i, lane, n_pos, dv, part + lane * dv + i); break;
          default: lane_sum<4>(scores, values + i, lane, n_pos, dv, part + lane * dv + i); break;
        }
      }
    }
    for (int lane = lanes; lane < 16; ++lane)
      for (int i = 0; i < dv; i += L) V::storef(part + lane * dv + i, V::zero_f());
    for (int width = 8; width >= 1; width /= 2)
      for (int lane = 0; lane < width; ++lane)
        for (int i = 0; i < dv; i += L)
          V::storef(part + lane * dv + i,
                    V::add_f(V::loadf(part + lane * dv + i), V::loadf(part + (lane + width) * dv + i)));
    for (int i = 0; i < dv; i += L) V::storef(out + i, V::loadf(part + i));
  }

  // out[0..NV*L) = sum over p = lane, lane + 16, ... of w[p] * v[p * stride + 0..NV*L),
  // NV independent chains held in registers.
  template <int NV>
  static void lane_sum(const float* w, const float* v, int lane, int n_pos, int stride, float* out) {
    F acc[NV];
    _Pragma("GCC unroll 4")
    for (int j = 0; j < NV; ++j) acc[j] = V::zero_f();
    for (int p = lane; p < n_pos; p += 16) {
      const F wp = V::set1f(w[p]);
      const float* row = v + static_cast<int64_t>(p) * stride;
      _Pragma("GCC unroll 4")
      for (int j = 0; j < NV; ++j) acc[j] = V::fmadd(wp, V::loadf(row + j * L), acc[j]);
    }
    _Pragma("GCC unroll 4")
    for (int j = 0; j < NV; ++j) V::storef(out + j * L, acc[j]);
  }

  // lane_sum<4> for lanes `lane` and `lane + 1` over a row of 4 vectors (dv == 4 L) at
  // once: eight independent FMA chains keep both FMA units busy. Same sums, same order.
  static void lane_pair_sum(const float* w, const float* v, int lane, int n_pos, int stride, float* out) {
    F a[4], b[4];
    for (int j = 0; j < 4; ++j) a[j] = b[j] = V::zero_f();
    int p = lane;
    for (; p + 1 < n_pos; p += 16) {
      const F wa = V::set1f(w[p]), wb = V::set1f(w[p + 1]);
      const float* ra = v + static_cast<int64_t>(p) * stride;
      const float* rb = ra + stride;
      _Pragma("GCC unroll 4")
      for (int j = 0; j < 4; ++j) {
        a[j] = V::fmadd(wa, V::loadf(ra + j * L), a[j]);
        b[j] = V::fmadd(wb, V::loadf(rb + j * L), b[j]);
      }
    }
    if (p < n_pos) {  // the last row belongs to `lane` only
      const F wa = V::set1f(w[p]);
      const float* ra = v + static_cast<int64_t>(p) * stride;
      for (int j = 0; j < 4; ++j) a[j] = V::fmadd(wa, V::loadf(ra + j * L), a[j]);
    }
    for (int j = 0; j < 4; ++j) {
      V::storef(out + j * L, a[j]);
      V::storef(out + stride + j * L, b[j]);
    }
  }

  // The 16 lanes held in 16 / L vectors, summed by halving (lane j += lane j + width).
  static float reduce16(const F* acc) {
    alignas(64) float lanes[16];
    for (int j = 0; j < 16 / L; ++j) V::storef(lanes + j * L, acc[j]);
    for (int width = 8; width >= 1; width /= 2)
      for (int j = 0; j < width; ++j) lanes[j] += lanes[j + width];
    return lanes[0];
  }

  // For very wide heads: one sequential sum per output element.
  static void weighted_sum_plain(const float* w, const float* values, int n_pos, int dv, float* out) {
    for (int i = 0; i < dv; i += L) {
      F acc = V::zero_f();
      for (int p = 0; p < n_pos; ++p) acc = V::fmadd(V::set1f(w[p]), V::loadf(values + static_cast<int64_t>(p) * dv + i), acc);
      V::storef(out + i, acc);
    }
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
