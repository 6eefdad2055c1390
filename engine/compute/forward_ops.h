// The element-wise steps of the transformer forward pass, each written to round like
// ggml-cpu's implementation of the same op (the comments say where that matters), so that
// wafer's logits agree with llama.cpp's to ~1e-5.
#pragma once

#include <cstdint>

namespace wafer::ops {

// y = x / sqrt(mean(x^2) + eps) * w over n elements. The sum of squares is taken in double
// (as ggml does, in four running sums where ggml keeps one), the scale in float, and
// y = (x * scale) * w with two roundings.
void rms_norm(const float* x, const float* w, float* y, int64_t n, float eps);

// RoPE angle table for one position: cos/sin of pos * base^(-2i/n_rot) * freq_scale for
// i < n_rot / 2. The angle is built by repeated float multiplication, like ggml, because
// at long positions pow() and repeated products differ by more than the tolerance.
void rope_angles(int64_t pos, int n_rot, float freq_base, float freq_scale, float* cos_out, float* sin_out);

// Rotates the first n_rot dims of one head vector in place: adjacent pairs (2i, 2i+1) for
// the normal layout, or (i, i + n_rot/2) for NeoX.
void rope_rotate(float* x, int n_rot, bool neox, const float* cos_t, const float* sin_t);

// In-place softmax of x[0..n) after scaling by `scale`: exp(s*x - max) / sum, the sum in
// double and applied as one float multiplication by its inverse (ggml's order).
void softmax_scaled(float* x, int64_t n, float scale);

// sum_i a[i] * b[i * b_stride] in 16 float lanes (lane i % 16) with fused multiply-adds,
// then the lanes added pairwise: the shape of ggml's AVX-512 F32 dot products, used for
// the attention scores and the weighted sum of values. A plain sequential float sum is
// less accurate and, through the Q8_K/Q8_0 rounding of the attention output that follows,
// flips a quant now and then where llama.cpp does not.
float lane_dot(const float* a, const float* b, int64_t n, int64_t b_stride);
// The same with b in IEEE half (an F16 KV cache), each element widened exactly to float.
float lane_dot(const float* a, const uint16_t* b, int64_t n, int64_t b_stride);

// g[i] = silu(g[i]) * u[i], silu(x) = x / (1 + exp(-x)).
void swiglu(float* g, const float* u, int64_t n);

}  // namespace wafer::ops
