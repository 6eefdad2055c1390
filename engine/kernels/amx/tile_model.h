// A software model of the AMX tile instructions the kernels use (Intel SDM: LDTILECFG,
// TILEZERO, TILELOADD, TILESTORED, TDPBSSD, TDPBF16PS, TILERELEASE), with the same interface as
// TileHw (tiles_hw.h). The tile kernels are compiled once over each, so their tile
// shapes, strides, addresses and block bookkeeping are tested on any machine with
// AVX-512, and only the instructions themselves need AMX hardware. The model checks what
// the hardware checks (a configured palette 1, shapes within limits, the operand shapes
// of the dot product agreeing) and aborts with a message where the hardware would fault.
// State is per thread, as the tile registers are.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/kernels/amx/tile_config.h"

namespace wafer::amx {

struct TileModel {
  static constexpr const char* kName = "amx-model";

  struct State {
    bool configured = false;
    uint16_t colsb[8] = {};
    uint8_t rows[8] = {};
    uint8_t data[8][kMaxTileRows][kMaxTileBytes] = {};
  };
  static State& state() {
    static thread_local State s;
    return s;
  }
  [[noreturn]] static void fault(const char* what) {
    std::fprintf(stderr, "AMX tile model: %s (the hardware would fault)\n", what);
    std::abort();
  }
  static State& configured() {
    State& s = state();
    if (!s.configured) fault("tile instruction before LDTILECFG");
    return s;
  }

  static void load_config(const TileConfig& c) {
    if (c.palette != 1) fault("palette is not 1");
    if (c.start_row != 0) fault("start_row is not 0");
    for (uint8_t r : c.reserved)
      if (r != 0) fault("reserved configuration bytes are not zero");
    State& s = state();
    for (int t = 0; t < 16; ++t) {
      if (t >= 8 && (c.colsb[t] != 0 || c.rows[t] != 0)) fault("palette 1 configures tiles 0..7 only");
      if (t < 8 && (c.colsb[t] > kMaxTileBytes || c.rows[t] > kMaxTileRows)) fault("tile larger than 16 x 64 bytes");
      if (t < 8 && ((c.colsb[t] == 0) != (c.rows[t] == 0))) fault("tile with rows but no bytes, or bytes but no rows");
    }
    for (int t = 0; t < 8; ++t) {
      s.colsb[t] = c.colsb[t];
      s.rows[t] = c.rows[t];
    }
    std::memset(s.data, 0, sizeof s.data);  // LDTILECFG zeroes every tile
    s.configured = true;
  }
  static void release() {
    State& s = state();
    std::memset(s.data, 0, sizeof s.data);
    s.configured = false;
  }

  template <int T>
  static void zero() {
    static_assert(T >= 0 && T < 8);
    std::memset(configured().data[T], 0, sizeof(State::data[T]));
  }
  template <int T>
  static void load(const void* base, int64_t stride) {
    static_assert(T >= 0 && T < 8);
    State& s = configured();
    if (s.rows[T] == 0) fault("load into an unconfigured tile");
    std::memset(s.data[T], 0, sizeof(State::data[T]));  // bytes past the configured shape read as zero
    for (int r = 0; r < s.rows[T]; ++r)
      std::memcpy(s.data[T][r], static_cast<const uint8_t*>(base) + r * stride, s.colsb[T]);
  }
  template <int T>
  static void store(void* base, int64_t stride) {
    static_assert(T >= 0 && T < 8);
    State& s = configured();
    if (s.rows[T] == 0) fault("store from an unconfigured tile");
    for (int r = 0; r < s.rows[T]; ++r) std::memcpy(static_cast<uint8_t*>(base) + r * stride, s.data[T][r], s.colsb[T]);
  }
  // C[m][n] += sum over k < colsb(A) / 4, i < 4 of int8(A[m][4k + i]) * int8(B[k][4n + i]),
  // in wrapping 32-bit arithmetic.
  template <int C, int A, int B>
  static void dp_ss() {
    static_assert(C != A && C != B && A != B && C >= 0 && C < 8 && A >= 0 && A < 8 && B >= 0 && B < 8);
    State& s = configured();
    const int m_rows = s.rows[C], n_cols = s.colsb[C] / 4, k_groups = s.colsb[A] / 4;
    if (m_rows == 0 || s.rows[A] != m_rows) fault("TDPBSSD: rows of A differ from rows of C");
    if (s.colsb[C] % 4 != 0 || s.colsb[A] % 4 != 0) fault("TDPBSSD: bytes per row not a multiple of 4");
    if (s.rows[B] != k_groups) fault("TDPBSSD: rows of B differ from bytes per row of A / 4");
    if (s.colsb[B] != s.colsb[C]) fault("TDPBSSD: bytes per row of B differ from those of C");
    for (int m = 0; m < m_rows; ++m)
      for (int n = 0; n < n_cols; ++n) {
        uint32_t acc;
        std::memcpy(&acc, &s.data[C][m][4 * n], 4);
        for (int k = 0; k < k_groups; ++k)
          for (int i = 0; i < 4; ++i) {
            const int a = static_cast<int8_t>(s.data[A][m][4 * k + i]);
            const int b = static_cast<int8_t>(s.data[B][k][4 * n + i]);
            acc += static_cast<uint32_t>(a * b);
          }
        std::memcpy(&s.data[C][m][4 * n], &acc, 4);
      }
  }
  // A BF16 value as the tile unit reads it: denormals as zero (the SDM's DAZ on inputs).
  static float bf16_input(const uint8_t* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    if ((h & 0x7f80) == 0) h &= 0x8000;
    const uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  // C[m][n] (fp32) += A[m][2k] * B[k][2n] + A[m][2k + 1] * B[k][2n + 1], for k in order:
  // each product exact (8-bit by 8-bit significands), the pair's sum rounded to fp32, then
  // added to C and rounded (for one pair, what the hardware computes, bit for bit, on
  // random pairs; the SDM's pseudo-code adds the two products to C one after the other,
  // which the hardware does not); denormal results flushed to zero. Over
  // a row of 16 pairs the hardware sums in an order of its own, so the tests compare the
  // hardware with this model within a tolerance, not bit for bit.
  template <int C, int A, int B>
  static void dp_bf16() {
    static_assert(C != A && C != B && A != B && C >= 0 && C < 8 && A >= 0 && A < 8 && B >= 0 && B < 8);
    State& s = configured();
    const int m_rows = s.rows[C], n_cols = s.colsb[C] / 4, k_pairs = s.colsb[A] / 4;
    if (m_rows == 0 || s.rows[A] != m_rows) fault("TDPBF16PS: rows of A differ from rows of C");
    if (s.colsb[C] % 4 != 0 || s.colsb[A] % 4 != 0) fault("TDPBF16PS: bytes per row not a multiple of 4");
    if (s.rows[B] != k_pairs) fault("TDPBF16PS: rows of B differ from bytes per row of A / 4");
    if (s.colsb[B] != s.colsb[C]) fault("TDPBF16PS: bytes per row of B differ from those of C");
    const auto flush = [](float v) { return std::fabs(v) < 1.17549435e-38f ? std::copysign(0.0f, v) : v; };
    for (int m = 0; m < m_rows; ++m)
      for (int n = 0; n < n_cols; ++n) {
        float acc;
        std::memcpy(&acc, &s.data[C][m][4 * n], 4);
        for (int k = 0; k < k_pairs; ++k) {
          const float p0 = bf16_input(&s.data[A][m][4 * k]) * bf16_input(&s.data[B][k][4 * n]);
          const float p1 = bf16_input(&s.data[A][m][4 * k + 2]) * bf16_input(&s.data[B][k][4 * n + 2]);
          const volatile float pair = p0 + p1;
          acc = flush(acc + pair);
        }
        std::memcpy(&s.data[C][m][4 * n], &acc, 4);
      }
  }
};

}  // namespace wafer::amx
