// The AMX prefill matmul in BF16 (TDPBF16PS) for the legacy weight types (Q8_0, Q4_0,
// Q5_0), written once over the tile instructions (Tiles: TileHw, TileModel) and the
// AVX-512 vector traits V, like the int8 tile kernel (amx_kernels.h) it stands beside.
//
// Why BF16: the int8 kernel must finish every 32-column block on the vector unit, because
// the weight and activation scales change from block to block, so each TDPBSSD (K = 32)
// is followed by a store of its 16 x 16 sums and 16 conversions and multiply-adds. Here the
// scales are folded into the values instead: a group of panels is unpacked once into BF16
// tiles holding scale x quant (rounded to nearest even), the activations once into BF16
// rows holding their scale x quant, and TDPBF16PS (K = 32, the same products per
// instruction as the int8 kernel's half-width tiles) accumulates the whole row in the tile
// in FP32. The vector unit only unpacks; results leave the tiles once per 16 x 16 outputs.
//
// The results are not the int8 kernels' bits: each weight and each activation is rounded
// to 8 significant bits (a relative error of at most 2^-9 each), so every product is
// within about 2^-8 of the exact one and each output within 2^-8 x sum |w x a| (plus FP32
// summation) of the integer kernels' result. amx_check.cpp checks a bound of 2^-7 on this
// CPU before the engine uses the kernel, and the tests check it against the scalar
// reference. Against llama.cpp's logits (tests/engine/compute/test_forward_reference.cpp)
// this moves the tiny reference models' top logits by up to 0.1-0.8, where the int8 tiles
// match to 1e-6: the engine uses these tiles only when asked (EngineOptions::amx_bf16).
//
// Blocking: tiles 0..3 hold the FP32 sums of two 16-token tiles x two 16-row panels, 4 and
// 5 the two token tiles' BF16 activations for one block (16 x 64 bytes), 6 and 7 the two
// panels' BF16 weights for that block (16 column pairs x 16 rows x 2 values). A group of
// panels is unpacked into L2 once per range of K (whose activations, for every token, fit
// in half of L2); every pair of token tiles goes through it, K in passes of 8 blocks so the
// pair's activations for a pass stay in L1 while the group's panels go past (the sums wait
// in a small buffer between passes, and in y between ranges). Every buffer a tile row is loaded
// from starts on a 64-byte line: a tile row split across two lines costs a second access.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/kernels/amx/tile_config.h"
#include "engine/kernels/simd/packed_kernels.h"
#include "engine/kernels/token_block.h"

namespace wafer::simd {

// FP32 to BF16, round to nearest even (no flushing: the tile unit reads denormal BF16
// inputs as zero itself). The scalar twin of AmxBf16Impl's vector rounding.
inline uint16_t bf16_round(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

template <class V, class Tiles>
struct AmxBf16Impl {
  using P = PackedImpl<V>;
  using I = typename V::I;
  using F = typename V::F;
  static_assert(V::kLanes == kPanelRows, "one vector lane per panel row");

  static constexpr int kTokens = 16;
  static constexpr int kBlockCols = 32;
  static constexpr int kUnpackedBlock = 1024;  // 16 column pairs x 16 rows x 2 BF16
  static constexpr int kActBlockBytes = 34;    // a ggml Q8_0 block: half scale, 32 quants
  // Fewer tokens than this go to the int8 tiles: the unpacking costs the same whatever
  // the batch, and pays only when enough token tiles pass each unpacked group.
  static constexpr int kMinTokens = 32;

  static amx::TileConfig config() { return amx::full_tiles(); }

  static bool handles(TensorType type, int n_tokens) { return P::is_legacy(type) && n_tokens >= kMinTokens; }

  // The bits of round-to-nearest-even BF16 in the upper half of each lane.
  static I rounded(F f) {
    const I u = V::bits(f);
    return V::add(u, V::add(V::set1(0x7fff), V::and_(V::srl(u, 16), V::set1(1))));
  }
  // The order of a block's 32 columns in the tiles: BF16 pair p < 8 holds columns 4p and
  // 4p + 1, pair 8 + p columns 4p + 2 and 4p + 3 (the dot product only needs the weights
  // and the activations in the same order; this one is what a vector of dwords gives).
  // Lane r of pair(lo, hi): BF16 of lo (bits 0..15) and of hi (bits 16..31).
  static I pair(F lo, F hi) {
    return V::or_(V::srl(rounded(lo), 16), V::and_(rounded(hi), V::set1(static_cast<int32_t>(0xffff0000u))));
  }
  // Byte k of each dword of q, sign-extended, times d.
  template <int k>
  static F byte_times(I q, F d) {
    return V::mul(V::to_float(k == 3 ? V::sra(q, 24) : V::sra(V::sll(q, 24 - 8 * k), 24)), d);
  }

  // The panel's blocks as BF16 B tiles: tile row p of block b holds, at byte 4r, weight
  // row r's column pair p (scale x (quant - offset)).
  template <class Fmt>
  static void unpack_panel(const uint8_t* panel, int64_t nb, uint8_t* out) {
    const auto offset = static_cast<int8_t>(Fmt::kOffset);
    for (int64_t b = 0; b < nb; ++b) {
      const uint8_t* blk = panel + b * Fmt::kBlockBytes;
      I w[8];
      Fmt::unpack(blk, 0, w);
      const F d = P::halves(blk, 0, 0);
      uint8_t* o = out + b * kUnpackedBlock;
      _Pragma("GCC unroll 8")
      for (int g = 0; g < 8; ++g) {  // dword g: columns 4g..4g+3 of every row
        const I q = V::sub_bytes(w[g], offset);
        V::storei(o + g * 64, pair(byte_times<0>(q, d), byte_times<1>(q, d)));
        V::storei(o + (8 + g) * 64, pair(byte_times<2>(q, d), byte_times<3>(q, d)));
      }
    }
  }

  // Tokens [0, n) of x as BF16 rows of nb * 32 values (scale x quant, columns in the
  // tiles' order), then zero rows up to n_pad. `out` has 64 bytes to spare at its end.
  static void convert_acts(const QuantizedActs& x, int n_pad, uint16_t* out) {
    const int64_t nb = x.blocks(), cols = nb * kBlockCols;
    for (int m = 0; m < n_pad; ++m) {
      uint16_t* row = out + m * cols;
      if (m >= x.n_tokens) {
        std::memset(row, 0, sizeof(uint16_t) * cols);
        continue;
      }
      const uint8_t* q = x.rows + static_cast<size_t>(m) * x.row_bytes + 2;
      alignas(64) uint8_t last[64] = {};
      for (int64_t b = 0; b < nb; ++b) {
        // Lanes 0..7 of a 64-byte load are the block's 8 dwords (the rest is not used; the
        // last token's last block is copied first so the load stays within the rows).
        const uint8_t* src = q + b * kActBlockBytes;
        if (m == x.n_tokens - 1 && b == nb - 1) src = static_cast<const uint8_t*>(std::memcpy(last, src, kBlockCols));
        const I v = V::load(src);
        const F d = V::set1f(x.d[m * nb + b]);
        uint8_t* o = reinterpret_cast<uint8_t*>(row + b * kBlockCols);
        V::storei(o, pair(byte_times<0>(v, d), byte_times<1>(v, d)));       // pairs 0..7 (+ 32 bytes overwritten next)
        V::storei(o + 32, pair(byte_times<2>(v, d), byte_times<3>(v, d)));  // pairs 8..15 (+ 32 spare bytes)
      }
    }
  }

  // Tiles 0..3 += blocks [b0, b1) of token tiles a0 (and the next 16 tokens) against
  // panels w0 (and w1).
  template <bool kTwoTokens, bool kTwoPanels>
  static void sums(const uint16_t* a0, int64_t a_stride, const uint8_t* w0, const uint8_t* w1, int64_t b0,
                   int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      Tiles::template load<4>(a0 + b * kBlockCols, a_stride);
      Tiles::template load<6>(w0 + b * kUnpackedBlock, 64);
      if constexpr (kTwoTokens) Tiles::template load<5>(a0 + b * kBlockCols + kTokens * a_stride / 2, a_stride);
      if constexpr (kTwoPanels) Tiles::template load<7>(w1 + b * kUnpackedBlock, 64);
      Tiles::template dp_bf16<0, 4, 6>();
      if constexpr (kTwoPanels) Tiles::template dp_bf16<1, 4, 7>();
      if constexpr (kTwoTokens) Tiles::template dp_bf16<2, 5, 6>();
      if constexpr (kTwoTokens && kTwoPanels) Tiles::template dp_bf16<3, 5, 7>();
    }
  }

  // Tile T's 16 x 16 sums to y: in place when whole, else through a buffer.
  template <int T>
  static void put(float* y, int64_t y_stride, int tokens, int rows) {
    if (tokens <= 0) return;
    if (tokens == kTokens && rows == kPanelRows) return Tiles::template store<T>(y, y_stride * 4);
    alignas(64) float c[kTokens * kPanelRows];
    Tiles::template store<T>(c, 64);
    for (int m = 0; m < tokens; ++m) std::memcpy(y + m * y_stride, c + m * kPanelRows, sizeof(float) * rows);
  }
  // put's inverse: tile T from y's sums (zero outside the real tokens and rows).
  template <int T>
  static void get(const float* y, int64_t y_stride, int tokens, int rows) {
    if (tokens == kTokens && rows == kPanelRows) return Tiles::template load<T>(y, y_stride * 4);
    alignas(64) float c[kTokens * kPanelRows] = {};
    for (int m = 0; m < tokens; ++m) std::memcpy(c + m * kPanelRows, y + m * y_stride, sizeof(float) * rows);
    Tiles::template load<T>(c, 64);
  }

  // Blocks of K per pass: two token tiles' activations for a pass (16 KB) stay in L1 while
  // every panel pair of the group goes past them; the partial sums wait in a small buffer
  // (4 tiles per panel pair) between passes.
  static constexpr int64_t kPassBlocks = 8;
  // K is taken in ranges whose activations, for every token, stay within this (half of a
  // Sapphire Rapids core's 2 MB L2) while the panels' groups go past them; between ranges
  // the sums wait in y. Without ranges a 4,864-wide row (the FFN's down projection) had
  // groups of two panels, and each group read all the activations (5 MB at 512 tokens).
  static constexpr int64_t kRangeActBytes = 1 << 20;

  template <class Fmt>
  static void tile_panels(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t pb,
                          int64_t pe) {
    const int64_t nb = x.blocks(), cols = nb * kBlockCols;
    const int n = x.n_tokens, n_pad = (n + 2 * kTokens - 1) / (2 * kTokens) * (2 * kTokens);
    int64_t range = kRangeActBytes / (int64_t{n_pad} * kBlockCols * 2) / kPassBlocks * kPassBlocks;
    if (range < kPassBlocks) range = kPassBlocks;
    if (range > nb) range = nb;
    const size_t panel_bytes = w.panel_bytes();
    const int64_t per_panel = range * kUnpackedBlock;  // a panel's blocks of one range
    int64_t group = (kAmxGroupBytes / per_panel) & ~int64_t{1};
    if (group < 2) group = 2;
    // Tile rows are 64 bytes: each buffer starts on a cache line, so no row load splits.
    static thread_local std::vector<uint8_t> buffer;
    const int64_t most = (pe - pb) < group ? (pe - pb) : group;
    const size_t unpacked_bytes = static_cast<size_t>(most * per_panel);
    const size_t acts_bytes = (static_cast<size_t>(n_pad * cols) * 2 + 64 + 63) / 64 * 64;
    const size_t partial_bytes = static_cast<size_t>((most + 1) / 2) * 4 * kTokens * kPanelRows * sizeof(float);
    if (buffer.size() < unpacked_bytes + acts_bytes + partial_bytes + 64)
      buffer.resize(unpacked_bytes + acts_bytes + partial_bytes + 64);
    uint8_t* const unpacked = buffer.data() + (64 - reinterpret_cast<uintptr_t>(buffer.data()) % 64) % 64;
    uint16_t* const acts = reinterpret_cast<uint16_t*>(unpacked + unpacked_bytes);
    float* const partial = reinterpret_cast<float*>(unpacked + unpacked_bytes + acts_bytes);
    convert_acts(x, n_pad, acts);
    const int64_t a_stride = cols * 2;  // bytes
    Tiles::load_config(config());
    const auto rows_of = [&](int64_t p) {
      const int64_t left = w.rows - p * kPanelRows;
      return left < kPanelRows ? static_cast<int>(left) : kPanelRows;
    };
    for (int64_t r0 = 0; r0 < nb; r0 += range) {
      const int64_t r1 = nb - r0 < range ? nb : r0 + range;
      for (int64_t g0 = pb; g0 < pe; g0 += group) {
        const int64_t g1 = pe - g0 < group ? pe : g0 + group;
        for (int64_t p = g0; p < g1; ++p)
          unpack_panel<Fmt>(w.data + static_cast<size_t>(p) * panel_bytes + r0 * Fmt::kBlockBytes, r1 - r0,
                            unpacked + (p - g0) * per_panel);
        for (int m0 = 0; m0 < n; m0 += 2 * kTokens) {
          const uint16_t* a0 = acts + static_cast<size_t>(m0) * cols + r0 * kBlockCols;
          const bool two_tokens = m0 + kTokens < n;
          const int t0 = n - m0 < kTokens ? n - m0 : kTokens;
          const int t1 = !two_tokens ? 0 : n - m0 - kTokens < kTokens ? n - m0 - kTokens : kTokens;
          for (int64_t k0 = 0; k0 < r1 - r0; k0 += kPassBlocks) {  // blocks from r0
            const int64_t k1 = r1 - r0 - k0 < kPassBlocks ? r1 - r0 : k0 + kPassBlocks;
            const bool first = k0 == 0, last = k1 == r1 - r0;
            for (int64_t p = g0; p < g1; p += 2) {
              const uint8_t* w0 = unpacked + (p - g0) * per_panel;
              const bool two_panels = p + 1 < g1;
              float* c = partial + static_cast<size_t>((p - g0) / 2) * 4 * kTokens * kPanelRows;
              float* out = y + m0 * y_stride + p * kPanelRows;
              if (first && r0 == 0) {
                Tiles::template zero<0>();
                Tiles::template zero<1>();
                Tiles::template zero<2>();
                Tiles::template zero<3>();
              } else if (first) {  // the sums of the ranges before
                get<0>(out, y_stride, t0, rows_of(p));
                get<2>(out + kTokens * y_stride, y_stride, t1, rows_of(p));
                if (two_panels) {
                  get<1>(out + kPanelRows, y_stride, t0, rows_of(p + 1));
                  get<3>(out + kTokens * y_stride + kPanelRows, y_stride, t1, rows_of(p + 1));
                }
              } else {
                Tiles::template load<0>(c, 64);
                Tiles::template load<1>(c + 256, 64);
                Tiles::template load<2>(c + 512, 64);
                Tiles::template load<3>(c + 768, 64);
              }
              if (two_tokens && two_panels) sums<true, true>(a0, a_stride, w0, w0 + per_panel, k0, k1);
              else if (two_tokens) sums<true, false>(a0, a_stride, w0, nullptr, k0, k1);
              else if (two_panels) sums<false, true>(a0, a_stride, w0, w0 + per_panel, k0, k1);
              else sums<false, false>(a0, a_stride, w0, nullptr, k0, k1);
              if (!last) {
                Tiles::template store<0>(c, 64);
                Tiles::template store<1>(c + 256, 64);
                Tiles::template store<2>(c + 512, 64);
                Tiles::template store<3>(c + 768, 64);
                continue;
              }
              put<0>(out, y_stride, t0, rows_of(p));
              put<2>(out + kTokens * y_stride, y_stride, t1, rows_of(p));
              if (two_panels) {
                put<1>(out + kPanelRows, y_stride, t0, rows_of(p + 1));
                put<3>(out + kTokens * y_stride + kPanelRows, y_stride, t1, rows_of(p + 1));
              }
            }
          }
        }
      }
    }
    Tiles::release();
  }

  // SimdKernels::matmul's contract; `other` computes what these tiles do not.
  static void matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t pb,
                     int64_t pe, PackedMatmulFn other) {
    if (pb >= pe) return;
    if (!handles(w.type, x.n_tokens)) return other(w, x, y, y_stride, pb, pe);
    switch (w.type) {
      case TensorType::Q8_0: return tile_panels<typename P::Q8_0>(w, x, y, y_stride, pb, pe);
      case TensorType::Q4_0: return tile_panels<typename P::Q4_0>(w, x, y, y_stride, pb, pe);
      case TensorType::Q5_0: return tile_panels<typename P::Q5_0>(w, x, y, y_stride, pb, pe);
      default: return;
    }
  }
};

}  // namespace wafer::simd
