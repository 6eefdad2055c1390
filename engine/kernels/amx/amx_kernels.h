// The AMX prefill matmul for the legacy weight types (Q8_0, Q4_0, Q5_0), written once over
// the tile instructions (Tiles: TileHw for the hardware, TileModel for the tests) and the
// AVX-512 vector traits V. The K-quants, and batches of fewer than 16 tokens (decode), go
// to the AVX-512 VNNI kernel unchanged.
//
// Per 16-row panel, the thread unpacks the packed blocks (repack.h) into signed int8 tiles
// once: a block of 16 rows x 32 columns becomes 8 tile rows of 64 bytes, tile row g holding
// dword g (columns 4g..4g+3) of weight row r at byte 4r, which is exactly the B operand of
// TDPBSSD, and each quant has its format's
// offset taken off (Q8_0 is stored + 128, Q4_0 and Q5_0 are unsigned with offsets 8 and 16),
// so no correction is left for later. The activations are copied once per call into A
// tiles (pack_acts): 16 tokens' 32 quants of one block, 512 bytes on 64-byte lines. Then,
// per tile of 16 tokens and per block, one TDPBSSD forms the 16 x 16 integer dot products,
// and the vector unit converts them and multiply-adds them with the weight scale times the
// activation scale into float accumulators, block after block. The integer sums equal those
// of PackedImpl::legacy_tile (which adds -offset x the activation sum to unsigned products:
// the same integer, exactly) and every float operation is the same, in the same order, so
// the results are bit-identical to the AVX-512 VNNI kernel's.
//
// Scales change every 32 columns, so each TDPBSSD covers one block (K = 32) and its result
// goes through memory to the vector unit; the tiles work on two blocks (tiles 0/2/4 and
// 1/3/5) while the vectors finish the two before them. On a Sapphire Rapids core the tile
// loads and stores do not overlap the vector work, so they are what to keep few: every
// tile row on its own 64-byte line (a row split across lines costs a second access). The
// last tile of tokens is padded with zero rows (zero quants, zero scales), so
// every panel is finished in one pass while its weights are in cache; only the real
// tokens' rows are stored. (Handing them to the VNNI kernel instead would stream the
// whole matrix from memory a second time.) Batches of fewer than 16 tokens stay on VNNI.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/kernels/amx/tile_config.h"
#include "engine/kernels/simd/packed_kernels.h"
#include "engine/kernels/token_block.h"

namespace wafer::simd {

template <class V, class Tiles>
struct AmxImpl {
  using P = PackedImpl<V>;
  using I = typename V::I;
  using F = typename V::F;
  static_assert(V::kLanes == kPanelRows, "one vector lane per panel row");

  static constexpr int kTokens = 16;         // rows of an activation tile
  static constexpr int kBlockCols = 32;      // columns of a legacy block (K of one product)
  static constexpr int kUnpackedBlock = 512;  // 16 rows x 32 int8 weights, as 8 rows of 64 bytes
  static constexpr int kActBlockBytes = 34;  // a ggml Q8_0 block: half scale, 32 quants

  // Tiles 0 and 1: 16 tokens x 16 rows of int32; 2 and 3: 16 tokens x 32 activation bytes;
  // 4 and 5: 8 x 64 weight bytes (4 bytes of each of the 16 rows per tile row).
  static amx::TileConfig config() {
    amx::TileConfig c;
    c.palette = 1;
    for (int t = 0; t < 2; ++t) {
      c.rows[t] = kTokens;
      c.colsb[t] = kPanelRows * 4;
      c.rows[2 + t] = kTokens;
      c.colsb[2 + t] = kBlockCols;
      c.rows[4 + t] = kBlockCols / 4;
      c.colsb[4 + t] = kPanelRows * 4;
    }
    return c;
  }

  static bool handles(TensorType type, int n_tokens) { return P::is_legacy(type) && n_tokens >= kTokens; }

  // The panel's blocks as signed int8 B tiles (quant - offset: -128..127 for Q8_0, -8..7
  // for Q4_0, -16..15 for Q5_0).
  template <class Fmt>
  static void unpack_panel(const uint8_t* panel, int64_t nb, uint8_t* out) {
    const auto offset = static_cast<int8_t>(Fmt::kOffset);  // 128 wraps to -128: the same bytes
    for (int64_t b = 0; b < nb; ++b) {
      I w[8];
      Fmt::unpack(panel + b * Fmt::kBlockBytes, 0, w);
      _Pragma("GCC unroll 8")
      for (int g = 0; g < 8; ++g) V::storei(out + b * kUnpackedBlock + g * 64, V::sub_bytes(w[g], offset));
    }
  }

  // 16 tokens' activations as A tiles: block b's 16 x 32 quants at quants + b * 512 (token
  // m's at byte 32m), the scale of token m's block b at d[m * nb + b]; `count` of the 16
  // are real (the rest padding).
  struct TokenTile {
    const uint8_t* quants;
    const float* d;
    int count;
  };

  // The quants of every token, tile after tile, as tiles read them: token tile t's block b
  // at out + (t * nb + b) * 512, 64-byte aligned, zero rows past the last token. Read in
  // place from the ggml rows, a tile row of 32 quants starts 2 + 34b bytes into a row and
  // most straddle two cache lines; tile loads of split rows are several times slower.
  static void pack_acts(const QuantizedActs& x, int64_t nb, int n_tiles, uint8_t* out) {
    for (int t = 0; t < n_tiles; ++t)
      for (int m = 0; m < kTokens; ++m) {
        const int token = t * kTokens + m;
        uint8_t* dst = out + static_cast<int64_t>(t) * nb * kUnpackedBlock + m * kBlockCols;
        if (token >= x.n_tokens) {
          for (int64_t b = 0; b < nb; ++b) __builtin_memset(dst + b * kUnpackedBlock, 0, kBlockCols);
          continue;
        }
        const uint8_t* row = x.rows + static_cast<int64_t>(token) * x.row_bytes + 2;
        for (int64_t b = 0; b < nb; ++b)
          __builtin_memcpy(dst + b * kUnpackedBlock, row + b * kActBlockBytes, kBlockCols);
      }
  }

  // acc[m] += c[m] x scale of row x scale of token m's block, as legacy_tile does it.
  static void finish_block(const int32_t* c, const uint8_t* blk, const TokenTile& tt, int64_t nb, int64_t b, F* acc) {
    const F dw = P::halves(blk, 0, 0);
    _Pragma("GCC unroll 16")
    for (int m = 0; m < kTokens; ++m) {
      const F da = V::set1f(tt.d[m * nb + b]);
      acc[m] = V::fmadd(V::to_float(V::load(c + m * kPanelRows)), V::mul(dw, da), acc[m]);
    }
  }

  // Blocks b and b + 1, from their sums in c[0] and c[1].
  template <class Fmt>
  static void finish_pair(const int32_t (*c)[kTokens * kPanelRows], const uint8_t* panel, const TokenTile& tt,
                          int64_t nb, int64_t b, F* acc) {
    finish_block(c[0], panel + b * Fmt::kBlockBytes, tt, nb, b, acc);
    finish_block(c[1], panel + (b + 1) * Fmt::kBlockBytes, tt, nb, b + 1, acc);
  }

  // Unpacked weights of a group of panels: what stays in L2 while every token tile passes
  // (token_block.h's kAmxGroupBytes, with the token tile's activations beside it).
  static constexpr int64_t kGroupBytes = kAmxGroupBytes;
  static int64_t group_panels(int64_t nb) {
    const int64_t g = kGroupBytes / (nb * kUnpackedBlock);
    return g < 1 ? 1 : g;
  }

  // One token tile against one unpacked panel: acc over every block, stored for the real
  // tokens.
  template <class Fmt>
  static void tile_panel(const uint8_t* panel, const uint8_t* wt, int64_t nb, const TokenTile& tt, float* y,
                         int64_t y_stride, int n_rows) {
    // Two pairs of sum buffers: the vectors finish one pair of blocks while the tiles store
    // the next pair's sums into the other.
    alignas(64) int32_t c[2][2][kTokens * kPanelRows];
    F acc[kTokens];
    _Pragma("GCC unroll 16")
    for (int m = 0; m < kTokens; ++m) acc[m] = V::zero_f();
    const uint8_t* a = tt.quants;
    int64_t b = 0, pending = -1;  // the first block of the stored pair not yet finished
    for (; b + 1 < nb; b += 2) {
      int32_t(*sums)[kTokens * kPanelRows] = c[(b >> 1) & 1];
      Tiles::template zero<0>();
      Tiles::template zero<1>();
      Tiles::template load<2>(a + b * kUnpackedBlock, kBlockCols);
      Tiles::template load<4>(wt + b * kUnpackedBlock, 64);
      Tiles::template load<3>(a + (b + 1) * kUnpackedBlock, kBlockCols);
      Tiles::template load<5>(wt + (b + 1) * kUnpackedBlock, 64);
      Tiles::template dp_ss<0, 2, 4>();
      Tiles::template dp_ss<1, 3, 5>();
      Tiles::template store<0>(sums[0], 64);
      Tiles::template store<1>(sums[1], 64);
      if (pending >= 0) finish_pair<Fmt>(c[(pending >> 1) & 1], panel, tt, nb, pending, acc);
      pending = b;
    }
    if (pending >= 0) finish_pair<Fmt>(c[(pending >> 1) & 1], panel, tt, nb, pending, acc);
    if (b < nb) {  // an odd number of blocks
      Tiles::template zero<0>();
      Tiles::template load<2>(a + b * kUnpackedBlock, kBlockCols);
      Tiles::template load<4>(wt + b * kUnpackedBlock, 64);
      Tiles::template dp_ss<0, 2, 4>();
      Tiles::template store<0>(c[0][0], 64);
      finish_block(c[0][0], panel + b * Fmt::kBlockBytes, tt, nb, b, acc);
    }
    _Pragma("GCC unroll 16")
    for (int m = 0; m < kTokens; ++m)
      if (m < tt.count) V::store(y + m * y_stride, acc[m], n_rows);
  }

  // `bytes` of `buf` from its first 64-byte line on.
  static uint8_t* aligned_room(std::vector<uint8_t>& buf, int64_t bytes) {
    if (buf.size() < static_cast<size_t>(bytes) + 64) buf.resize(static_cast<size_t>(bytes) + 64);
    const auto at = reinterpret_cast<uintptr_t>(buf.data());
    return buf.data() + ((64 - at % 64) % 64);
  }

  // Panels [pb, pe) of w for every token of x, a group of panels at a time: the group's
  // blocks are unpacked once, then every tile of 16 tokens (packed once per call, the last
  // padded with zero rows) goes through all of the group's panels while its
  // activations are in cache. A prefill's activations are then read once per group, not
  // once per panel (512 tokens of a 4,864-wide row are 2.6 MB); each output is computed
  // exactly as before, block after block.
  template <class Fmt>
  static void tile_panels(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t pb,
                          int64_t pe) {
    const int64_t nb = x.blocks();
    const size_t panel_bytes = w.panel_bytes();
    const int64_t per_panel = nb * kUnpackedBlock;
    const int64_t group = group_panels(nb);
    // Both buffers start on a 64-byte line (see pack_acts); they grow to the largest
    // request, then are reused.
    static thread_local std::vector<uint8_t> unpacked_buf, acts_buf;
    const int64_t most = (pe - pb) < group ? (pe - pb) : group;
    uint8_t* unpacked = aligned_room(unpacked_buf, most * per_panel);
    const int n_tiles = (x.n_tokens + kTokens - 1) / kTokens, rest = x.n_tokens % kTokens;
    uint8_t* acts = aligned_room(acts_buf, n_tiles * per_panel);
    pack_acts(x, nb, n_tiles, acts);
    static thread_local std::vector<float> pad_d;  // the last tile's scales, zero past the last token
    if (rest > 0) {
      pad_d.assign(static_cast<size_t>(kTokens * nb), 0.0f);
      const int t0 = (n_tiles - 1) * kTokens;
      __builtin_memcpy(pad_d.data(), x.d + t0 * nb, rest * nb * sizeof(float));
    }
    Tiles::load_config(config());
    for (int64_t g0 = pb; g0 < pe; g0 += group) {
      const int64_t g1 = pe - g0 < group ? pe : g0 + group;
      for (int64_t p = g0; p < g1; ++p)
        unpack_panel<Fmt>(w.data + static_cast<size_t>(p) * panel_bytes, nb, unpacked + (p - g0) * per_panel);
      for (int tile = 0; tile < n_tiles; ++tile) {
        const int m0 = tile * kTokens;
        const bool padded = rest > 0 && tile == n_tiles - 1;
        const TokenTile tt{acts + tile * per_panel, padded ? pad_d.data() : x.d + m0 * nb, padded ? rest : kTokens};
        for (int64_t p = g0; p < g1; ++p) {
          const int64_t left = w.rows - p * kPanelRows;
          const int n_rows = left < kPanelRows ? static_cast<int>(left) : kPanelRows;
          tile_panel<Fmt>(w.data + static_cast<size_t>(p) * panel_bytes, unpacked + (p - g0) * per_panel, nb, tt,
                          y + m0 * y_stride + p * kPanelRows, y_stride, n_rows);
        }
      }
    }
    Tiles::release();  // back to the initial state: nothing for the OS to save on a switch
  }

  // SimdKernels::matmul's contract; `vnni` computes what the tiles do not.
  static void matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t pb,
                     int64_t pe, PackedMatmulFn vnni) {
    if (pb >= pe) return;
    if (!handles(w.type, x.n_tokens)) return vnni(w, x, y, y_stride, pb, pe);
    switch (w.type) {
      case TensorType::Q8_0: return tile_panels<typename P::Q8_0>(w, x, y, y_stride, pb, pe);
      case TensorType::Q4_0: return tile_panels<typename P::Q4_0>(w, x, y, y_stride, pb, pe);
      case TensorType::Q5_0: return tile_panels<typename P::Q5_0>(w, x, y, y_stride, pb, pe);
      default: return;
    }
  }
};

}  // namespace wafer::simd
