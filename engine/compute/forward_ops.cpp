#include "engine/compute/forward_ops.h"

#include <cmath>

#include "engine/kernels/softmax_floor.h"
#include "engine/quant/float16.h"

namespace wafer::ops {

void rms_norm(const float* x, const float* w, float* y, int64_t n, float eps) {
  // Four running sums: one chain of dependent double additions is bound by the adder's
  // latency, a visible share of a long prefill. In double the order changes the
  // sum by ~1e-16 relative, far below the float it is rounded to.
  double part[4] = {0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int j = 0; j < 4; ++j) part[j] += static_cast<double>(x[i + j] * x[i + j]);
  for (; i < n; ++i) part[0] += static_cast<double>(x[i] * x[i]);
  const double sum = (part[0] + part[1]) + (part[2] + part[3]);
  const float mean = static_cast<float>(sum / static_cast<double>(n));
  const float scale = 1.0f / std::sqrt(mean + eps);
  for (i = 0; i < n; ++i) {
    const float scaled = x[i] * scale;
    y[i] = scaled * w[i];
  }
}

void rope_angles(int64_t pos, int n_rot, float freq_base, float freq_scale, float* cos_out, float* sin_out) {
  const float theta_scale = std::pow(freq_base, -2.0f / static_cast<float>(n_rot));
  float theta = static_cast<float>(pos);
  for (int i = 0; i < n_rot / 2; ++i) {
    const float angle = freq_scale * theta;
    cos_out[i] = std::cos(angle);
    sin_out[i] = std::sin(angle);
    theta *= theta_scale;
  }
}

void rope_rotate(float* x, int n_rot, bool neox, const float* cos_t, const float* sin_t) {
  const int half = n_rot / 2;
  for (int i = 0; i < half; ++i) {
    float* a = neox ? x + i : x + 2 * i;
    float* b = neox ? x + i + half : x + 2 * i + 1;
    const float x0 = *a, x1 = *b;
    *a = x0 * cos_t[i] - x1 * sin_t[i];
    *b = x0 * sin_t[i] + x1 * cos_t[i];
  }
}

void softmax_scaled(float* x, int64_t n, float scale) {
  float max = -INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    x[i] *= scale;
    max = std::fmax(max, x[i]);
  }
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float d = x[i] - max;
    x[i] = d > kSoftmaxFloor ? std::exp(d) : 0.0f;  // no denormal weights (softmax_floor.h)
    sum += static_cast<double>(x[i]);
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int64_t i = 0; i < n; ++i) x[i] *= inv;
}

namespace {

float widen(float x) { return x; }
float widen(uint16_t h) { return f16_to_f32(h); }

template <class T>
float lane_dot_t(const float* a, const T* b, int64_t n, int64_t b_stride) {
  float lanes[16] = {};
  for (int64_t i = 0; i < n; ++i) lanes[i % 16] = std::fma(a[i], widen(b[i * b_stride]), lanes[i % 16]);
  for (int width = 8; width >= 1; width /= 2)
    for (int j = 0; j < width; ++j) lanes[j] += lanes[j + width];
  return lanes[0];
}

}  // namespace

float lane_dot(const float* a, const float* b, int64_t n, int64_t b_stride) { return lane_dot_t(a, b, n, b_stride); }
float lane_dot(const float* a, const uint16_t* b, int64_t n, int64_t b_stride) { return lane_dot_t(a, b, n, b_stride); }

void swiglu(float* g, const float* u, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float silu = g[i] / (1.0f + std::exp(-g[i]));
    g[i] = silu * u[i];
  }
}

}  // namespace wafer::ops
