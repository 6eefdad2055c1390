// The packed-matmul kernels, written once over a vector "traits" type V and compiled once
// per instruction set: kernels/avx512/kernels_avx512.cpp instantiates them with 16-lane
// VNNI traits, kernels/avx2/kernels_avx2.cpp with 8-lane AVX2 traits. One vector lane is one
// weight row of a 16-row panel (repack.h); an 8-lane ISA walks each panel in two halves.
//
// V provides (I: vector of int32 lanes, F: vector of float lanes):
//   kLanes, kMaxTokens (token tile), kQ8Offset (128 if dot_q8_bcast takes w + 128, else 0),
//   load(p), bcast32(p), set1(int), dot_u_bcast(acc, u, p) (acc += sum of 4 u8 x s8 with
//   the s8 dword at p broadcast, u <= 63), dot_q8_bcast(acc, w, p) (the Q8_0 form), bit
//   ops, shifts by runtime counts (sll, srl, sra), mullo, madd16 (pairs of int16),
//   spread_bits(qh, shift) (bits shift..shift+3 of each lane -> 0x10 in bytes 0..3),
//   to_float, half_to_float(p), set1f, mul, fmadd, fnmadd, zero_f, store(y, v, n) (first n
//   lanes).
//
// Everything here is a template over V so the two instantiations never share a symbol
// (functions compiled with different -m flags must not be merged by the linker).
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "engine/kernels/dispatch.h"
#include "engine/kernels/token_block.h"

namespace wafer::simd {

template <class V>
struct PackedImpl {
  using I = typename V::I;
  using F = typename V::F;
  static constexpr int L = V::kLanes;
  static constexpr int kRows = kPanelRows;
  // Software prefetch, in the matmul_prefetch twins only (kPf): whether it helps, and
  // which kind, depends on the machine. Where the kernels do enough work per cache line
  // that the out-of-order window no longer reaches far enough ahead, non-temporal
  // prefetches 4-8 KB ahead speed K-quant decode up; where the hardware prefetcher already
  // does the job, the same prefetches slow it down, and there prefetching into L1 1 KB
  // ahead may still help (docs/performance.md, "Figures behind the engine's code"). So
  // there are three twins, far, near and l2, and the backend times all four kernels now and
  // then while decoding and uses the fastest (simd_backend.cpp). Prefill reuses each panel
  // across token tiles, so only K-quant tiles of a verification batch's few tokens prefetch
  // (on an 8-lane ISA, only in the first pass over a panel), the one-token loop of Q8_0,
  // Q4_0 and Q5_0 (legacy_rows) and its few-token form (legacy_rows_batch). Always
  // inlined: GCC deems an out-of-line function that only prefetches pure, and deletes the
  // call.
  static constexpr int kPrefetchMaxTokens = ::wafer::kPrefetchMaxTokens;  // tiles up to this size prefetch
  // The three kinds (dispatch.h's DecodePrefetch): far, NTA 8 KB ahead of the block being
  // read; near, into L1 1 KB ahead; l2, into L2 4 KB ahead. Where the loop does more work
  // per cache line (a verification batch: every weight vector used for several tokens),
  // the out-of-order window holds fewer lines in flight and the stream slows down; on a
  // Sapphire Rapids-class VM the l2 kind kept a batch of 4 tokens at the speed of one
  // token, where near and none lost a quarter and far (non-temporal) ran at a third
  // (docs/performance.md).
  static constexpr int kFarAhead = 8192, kNearAhead = 1024, kL2Ahead = 4096;
  template <int kBytes, int kPf>
  [[gnu::always_inline]] static inline void prefetch_ahead(const uint8_t* blk) {
    static_assert(kPf == kPrefetchFar || kPf == kPrefetchNear || kPf == kPrefetchL2);
    _Pragma("GCC unroll 64")
    for (int off = 0; off < kBytes; off += 64) {
      if constexpr (kPf == kPrefetchFar)
        __builtin_prefetch(blk + kFarAhead + off, 0, 0);
      else if constexpr (kPf == kPrefetchL2)
        __builtin_prefetch(blk + kL2Ahead + off, 0, 2);
      else
        __builtin_prefetch(blk + kNearAhead + off, 0, 3);
    }
  }

  // Dword g of the section at byte `offset` of a packed block, for this lane group.
  static I dword_row(const uint8_t* blk, int offset, int g, int lane0) {
    return V::load(blk + offset + (g * kRows + lane0) * 4);
  }
  static F halves(const uint8_t* blk, int offset, int lane0) {
    return V::half_to_float(reinterpret_cast<const uint16_t*>(blk + offset) + lane0);
  }

  // ---- Q8_0, Q4_0, Q5_0: 32-column blocks, Q8_0 activations ----------------------------

  // The 8 weight vectors of a block, w[g] pairing with activation bytes 4g..4g+3.
  struct Q8_0 {
    static constexpr int kBlockBytes = 544;
    static constexpr int kOffset = V::kQ8Offset;
    static I dot_bcast(I acc, I w, const void* a) { return V::dot_q8_bcast(acc, w, a); }
    static void unpack(const uint8_t* blk, int lane0, I* w) {
      _Pragma("GCC unroll 16")
      for (int g = 0; g < 8; ++g) w[g] = dword_row(blk, 32, g, lane0);
    }
    // w[2k] and w[2k + 1] (row_block's rolled loop).
    static void unpack_pair(const uint8_t* blk, int lane0, int k, I& w0, I& w1) {
      w0 = dword_row(blk, 32, 2 * k, lane0);
      w1 = dword_row(blk, 32, 2 * k + 1, lane0);
    }
    static constexpr int pair_first(int k) { return 2 * k; }
    static constexpr int pair_second(int k) { return 2 * k + 1; }
  };
  struct Q4_0 {
    static constexpr int kBlockBytes = 288;
    static constexpr int kOffset = 8;
    static I dot_bcast(I acc, I w, const void* a) { return V::dot_u_bcast(acc, w, a); }
    static void unpack(const uint8_t* blk, int lane0, I* w) {
      const I m4 = V::set1(0x0f0f0f0f);
      _Pragma("GCC unroll 16")
      for (int k = 0; k < 4; ++k) {
        I raw = dword_row(blk, 32, k, lane0);
        w[k] = V::and_(raw, m4);
        w[k + 4] = V::and_(V::srl(raw, 4), m4);
      }
    }
    // w[k] and w[k + 4] (row_block's rolled loop).
    static void unpack_pair(const uint8_t* blk, int lane0, int k, I& w0, I& w1) {
      const I m4 = V::set1(0x0f0f0f0f);
      I raw = dword_row(blk, 32, k, lane0);
      w0 = V::and_(raw, m4);
      w1 = V::and_(V::srl(raw, 4), m4);
    }
    static constexpr int pair_first(int k) { return k; }
    static constexpr int pair_second(int k) { return k + 4; }
  };
  struct Q5_0 {
    static constexpr int kBlockBytes = 352;
    static constexpr int kOffset = 16;
    static I dot_bcast(I acc, I w, const void* a) { return V::dot_u_bcast(acc, w, a); }
    static void unpack(const uint8_t* blk, int lane0, I* w) {
      const I m4 = V::set1(0x0f0f0f0f);
      const I qh = dword_row(blk, 32, 0, lane0);
      _Pragma("GCC unroll 16")
      for (int k = 0; k < 4; ++k) {
        I raw = dword_row(blk, 96, k, lane0);
        w[k] = V::or_(V::and_(raw, m4), V::spread_bits(qh, 4 * k));
        w[k + 4] = V::or_(V::and_(V::srl(raw, 4), m4), V::spread_bits(qh, 16 + 4 * k));
      }
    }
  };

  // Legacy-type activations of a token tile of T tokens, as the matmul copies them for
  // this thread (tile_acts): block b at tb + b * T * 40 holds the T tokens' 32 quants, then
  // their T float scales, then T int32 sums of the quants multiplied by -offset (the weight
  // format's unsigned offset), so the integer sum starts there with one broadcast. Every
  // address in the kernel is then a pointer plus a constant.
  static constexpr int kLegacyTokenBytes = 32 + 4 + 4;  // per token and block

  template <class Fmt, int T, int lane0>
  static void legacy_tile(const uint8_t* panel, int64_t nb, const uint8_t* tiled, F* acc_out) {
    F acc[T];  // in registers for the whole panel row, stored once
    _Pragma("GCC unroll 16")
    for (int t = 0; t < T; ++t) acc[t] = acc_out[t];
    for (int64_t b = 0; b < nb; ++b) {
      const uint8_t* blk = panel + b * Fmt::kBlockBytes;
      const uint8_t* tb = tiled + b * T * kLegacyTokenBytes;
      const float* da = reinterpret_cast<const float*>(tb + T * 32);
      const int32_t* sa = reinterpret_cast<const int32_t*>(tb + T * 36);
      const F dw = halves(blk, 0, lane0);
      I w[8];
      Fmt::unpack(blk, lane0, w);
      _Pragma("GCC unroll 16")
      for (int t = 0; t < T; ++t) {
        const uint8_t* qa = tb + t * 32;
        I s = V::bcast32(sa + t);
        if constexpr (T >= 4) {  // the tokens' chains are independent: enough to hide the VNNI latency
          _Pragma("GCC unroll 16")
          for (int g = 0; g < 8; ++g) s = Fmt::dot_bcast(s, w[g], qa + 4 * g);
        } else {  // two chains: with few tokens nothing else hides the latency
          I s1 = V::set1(0);
          _Pragma("GCC unroll 16")
          for (int g = 0; g < 8; g += 2) {
            s = Fmt::dot_bcast(s, w[g], qa + 4 * g);
            s1 = Fmt::dot_bcast(s1, w[g + 1], qa + 4 * g + 4);
          }
          s = V::add(s, s1);
        }
        acc[t] = V::fmadd(V::to_float(s), V::mul(dw, V::set1f(da[t])), acc[t]);
      }
    }
    _Pragma("GCC unroll 16")
    for (int t = 0; t < T; ++t) acc_out[t] = acc[t];
  }

  // Two panels at once, T tokens of a token tile laid out for kTile tokens (tile_acts),
  // from token t_off of that tile: each activation broadcast feeds both panels' products,
  // where legacy_tile loads one per product (89 loads per 64 products, 58 here: those loads
  // limit legacy_tile as much as the multiplies do). The same sums as legacy_tile, bit for
  // bit. 16-lane ISAs, Q8_0 and Q4_0: 2T sums and 2T accumulators fill the registers from
  // about 6 tokens on, so a full tile goes in parts of 4 (Q4_0 then unpacks its nibbles for
  // every 4 tokens instead of 8, and still runs a third faster than one panel at a time on
  // Zen 5: docs/performance.md). The products go weight vector by weight vector (a pair of
  // them, Fmt::unpack_pair's, outer), so the 2T sums' chains interleave in program order: one
  // VPDPBUSD waits ~5 cycles for the last, and token by token each chain's 8 products came
  // in a row, leaving the out-of-order window to find the others (5-14 % slower on
  // Sapphire Rapids).
  template <class Fmt, int T, int kTile>
  static void legacy_tile_pair(const uint8_t* panel0, const uint8_t* panel1, int64_t nb, const uint8_t* tiled,
                               int t_off, F* acc0_out, F* acc1_out) {
    F acc0[T], acc1[T];
    _Pragma("GCC unroll 16")
    for (int t = 0; t < T; ++t) {
      acc0[t] = acc0_out[t];
      acc1[t] = acc1_out[t];
    }
    for (int64_t b = 0; b < nb; ++b) {
      const uint8_t* blk0 = panel0 + b * Fmt::kBlockBytes;
      const uint8_t* blk1 = panel1 + b * Fmt::kBlockBytes;
      const uint8_t* tb = tiled + b * kTile * kLegacyTokenBytes;
      const float* da = reinterpret_cast<const float*>(tb + kTile * 32) + t_off;
      const int32_t* sa = reinterpret_cast<const int32_t*>(tb + kTile * 36) + t_off;
      const uint8_t* qa = tb + t_off * 32;
      I s0[T], s1[T];
      _Pragma("GCC unroll 16")
      for (int t = 0; t < T; ++t) s0[t] = s1[t] = V::bcast32(sa + t);
      _Pragma("GCC unroll 16")
      for (int k = 0; k < 4; ++k) {
        I a0, a1, b0, b1;  // Fmt::unpack's w[pair_first(k)] and w[pair_second(k)] of each panel
        Fmt::unpack_pair(blk0, 0, k, a0, a1);
        Fmt::unpack_pair(blk1, 0, k, b0, b1);
        _Pragma("GCC unroll 16")
        for (int t = 0; t < T; ++t) {
          s0[t] = row_dot<Fmt>(s0[t], a0, qa + t * 32 + 4 * Fmt::pair_first(k));
          s1[t] = row_dot<Fmt>(s1[t], b0, qa + t * 32 + 4 * Fmt::pair_first(k));
        }
        _Pragma("GCC unroll 16")
        for (int t = 0; t < T; ++t) {
          s0[t] = row_dot<Fmt>(s0[t], a1, qa + t * 32 + 4 * Fmt::pair_second(k));
          s1[t] = row_dot<Fmt>(s1[t], b1, qa + t * 32 + 4 * Fmt::pair_second(k));
        }
      }
      const F dw0 = halves(blk0, 0, 0), dw1 = halves(blk1, 0, 0);
      _Pragma("GCC unroll 16")
      for (int t = 0; t < T; ++t) {
        const F d = V::set1f(da[t]);
        acc0[t] = V::fmadd(V::to_float(s0[t]), V::mul(dw0, d), acc0[t]);
        acc1[t] = V::fmadd(V::to_float(s1[t]), V::mul(dw1, d), acc1[t]);
      }
    }
    _Pragma("GCC unroll 16")
    for (int t = 0; t < T; ++t) {
      acc0_out[t] = acc0[t];
      acc1_out[t] = acc1[t];
    }
  }

  // One token (decode) through panels [panel_begin, panel_end): one loop over the slice's
  // blocks (the panels are contiguous), the type chosen once per matrix, each block's
  // weight vectors read and used two at a time in a loop that is not unrolled, the
  // products' broadcasts in registers where the ISA has that form (dot_u_bcast_reg): it
  // streams the weights faster than the per-panel tile path (all eight loads of a block,
  // then the eight products with embedded broadcasts), close to a loop that only loads.
  // kPf (the matmul_prefetch twins): each block also prefetches the lines ahead of it
  // (prefetch_ahead), 1 KB (near) or 8 KB (far) ahead.
  template <class Fmt>
  static I row_dot(I acc, I w, const void* a) {
    if constexpr (requires { V::dot_u_bcast_reg(acc, w, a); }) {
      static_assert(Fmt::kOffset != 0, "the unsigned form needs weights stored with an offset");
      return V::dot_u_bcast_reg(acc, w, a);
    } else {
      return Fmt::dot_bcast(acc, w, a);
    }
  }
  template <class Fmt, int lane0>
  static F row_block(const uint8_t* blk, const uint8_t* qa, F acc) {
    const F dw = halves(blk, 0, lane0);
    I s = V::bcast32(qa + 36), s1 = V::set1(0);
    if constexpr (std::is_same_v<Fmt, Q5_0>) {
      // Q5_0's fifth bits: those of w[k] and w[k + 4] are bits 4k.. and 16 + 4k.. of qh, so
      // the loop shifts qh by 4 each time and spreads bits 0.. and 16.. (constant shifts,
      // which spread_bits needs).
      const I m4 = V::set1(0x0f0f0f0f);
      I qh = dword_row(blk, 32, 0, lane0);
      _Pragma("GCC unroll 1")
      for (int k = 0; k < 4; ++k) {
        const I raw = dword_row(blk, 96, k, lane0);
        s = row_dot<Fmt>(s, V::or_(V::and_(raw, m4), V::spread_bits(qh, 0)), qa + 4 * k);
        s1 = row_dot<Fmt>(s1, V::or_(V::and_(V::srl(raw, 4), m4), V::spread_bits(qh, 16)), qa + 4 * (k + 4));
        qh = V::srl(qh, 4);
      }
    } else {
      _Pragma("GCC unroll 1")
      for (int k = 0; k < 4; ++k) {
        I w0, w1;
        Fmt::unpack_pair(blk, lane0, k, w0, w1);
        s = row_dot<Fmt>(s, w0, qa + 4 * Fmt::pair_first(k));
        s1 = row_dot<Fmt>(s1, w1, qa + 4 * Fmt::pair_second(k));
      }
    }
    s = V::add(s, s1);
    return V::fmadd(V::to_float(s), V::mul(dw, V::set1f(*reinterpret_cast<const float*>(qa + 32))), acc);
  }
  template <class Fmt, int kPf>
  static void legacy_rows(const PackedMatrix& w, int64_t panel_begin, int64_t panel_end, const uint8_t* tiled,
                          float* y) {
    const int64_t nb = w.blocks_per_row();
    for (int64_t p = panel_begin; p < panel_end; ++p) {
      const uint8_t* panel = w.data + p * nb * Fmt::kBlockBytes;
      const int64_t first_row = p * kRows;
      const int64_t n = w.rows - first_row;
      F acc = V::zero_f(), acc_hi = V::zero_f();
      for (int64_t b = 0; b < nb; ++b) {
        const uint8_t* blk = panel + b * Fmt::kBlockBytes;
        if constexpr (kPf != kPrefetchNone) prefetch_ahead<Fmt::kBlockBytes, kPf>(blk);
        const uint8_t* qa = tiled + b * kLegacyTokenBytes;
        acc = row_block<Fmt, 0>(blk, qa, acc);
        if constexpr (L < kRows) acc_hi = row_block<Fmt, L>(blk, qa, acc_hi);
      }
      V::store(y + first_row, acc, n < L ? static_cast<int>(n) : L);
      if constexpr (L < kRows) {
        if (n > L) V::store(y + first_row + L, acc_hi, n < 2 * L ? static_cast<int>(n - L) : L);
      }
    }
  }

  // A few tokens (a speculative draft's verification, 2 to kRowsBatchMax) through panels
  // [panel_begin, panel_end) the way legacy_rows streams one token: the slice's panels in
  // order, each weight vector loaded once and used for several tokens, with the decode
  // twins' prefetch (kPf). The tile kernels (every product unrolled, two panels at once)
  // stream the weights at half the speed or less there: so few tokens do not pay for their
  // issue width. A 16-lane ISA takes the T tokens in one pass over a panel, its block's
  // four weight-vector pairs unrolled and the activations broadcast by the products
  // themselves (embedded {1to16} operands): with each token's products the loop's work
  // per weight byte grows, and these two cut its micro-ops, where the one-token loop
  // (legacy_rows) streams fastest rolled with broadcasts in registers. An 8-lane ISA (16
  // vector registers) goes in passes of up to 4 tokens over each half of the panel, the
  // first from memory and the others from the cache, rolled. `tiled`: the T tokens as one
  // tile (tile_acts). The same sums as legacy_tile, bit for bit.
  template <class Fmt, int T, int A, int lane0, int kPf>
  static void rows_pass(const uint8_t* panel, int64_t nb, const uint8_t* tiled, int t_off, float* y,
                        int64_t y_stride, int n_lanes) {
    // Two chains of sums per token while the tokens' chains are too few to hide the VNNI
    // latency and the registers hold them.
    constexpr bool kTwo = L == kRows ? A <= 4 : A <= 2;
    F acc[A];
    _Pragma("GCC unroll 16")
    for (int t = 0; t < A; ++t) acc[t] = V::zero_f();
    for (int64_t b = 0; b < nb; ++b) {
      const uint8_t* blk = panel + b * Fmt::kBlockBytes;
      if constexpr (kPf != kPrefetchNone) prefetch_ahead<Fmt::kBlockBytes, kPf>(blk);
      const uint8_t* tb = tiled + b * T * kLegacyTokenBytes;
      const uint8_t* qa = tb + t_off * 32;
      const float* da = reinterpret_cast<const float*>(tb + T * 32) + t_off;
      const int32_t* sa = reinterpret_cast<const int32_t*>(tb + T * 36) + t_off;
      I s[A], s1[A];
      _Pragma("GCC unroll 16")
      for (int t = 0; t < A; ++t) {
        s[t] = V::bcast32(sa + t);
        if constexpr (kTwo) s1[t] = V::set1(0);
      }
      const auto dot = [](I acc, I w, const uint8_t* a) {
        if constexpr (L == kRows)
          return Fmt::dot_bcast(acc, w, a);
        else
          return row_dot<Fmt>(acc, w, a);
      };
      const auto products = [&](int k) {
        I w0, w1;
        Fmt::unpack_pair(blk, lane0, k, w0, w1);
        _Pragma("GCC unroll 16")
        for (int t = 0; t < A; ++t) {
          s[t] = dot(s[t], w0, qa + t * 32 + 4 * Fmt::pair_first(k));
          if constexpr (kTwo)
            s1[t] = dot(s1[t], w1, qa + t * 32 + 4 * Fmt::pair_second(k));
          else
            s[t] = dot(s[t], w1, qa + t * 32 + 4 * Fmt::pair_second(k));
        }
      };
      if constexpr (L == kRows) {
        _Pragma("GCC unroll 4")
        for (int k = 0; k < 4; ++k) products(k);
      } else {
        _Pragma("GCC unroll 1")
        for (int k = 0; k < 4; ++k) products(k);
      }
      const F dw = halves(blk, 0, lane0);
      _Pragma("GCC unroll 16")
      for (int t = 0; t < A; ++t) {
        const I sum = kTwo ? V::add(s[t], s1[t]) : s[t];
        acc[t] = V::fmadd(V::to_float(sum), V::mul(dw, V::set1f(da[t])), acc[t]);
      }
    }
    _Pragma("GCC unroll 16")
    for (int t = 0; t < A; ++t) V::store(y + (t_off + t) * y_stride + lane0, acc[t], n_lanes);
  }
  template <class Fmt, int T, int kPf>
  static void legacy_rows_batch(const PackedMatrix& w, int64_t panel_begin, int64_t panel_end,
                                const uint8_t* tiled, float* y, int64_t y_stride) {
    const int64_t nb = w.blocks_per_row();
    constexpr int G = L == kRows || T <= 4 ? T : 4;  // tokens of the first pass
    for (int64_t p = panel_begin; p < panel_end; ++p) {
      const uint8_t* panel = w.data + p * nb * Fmt::kBlockBytes;
      const int64_t first_row = p * kRows;
      const int n = static_cast<int>(w.rows - first_row < kRows ? w.rows - first_row : kRows);
      float* yp = y + first_row;
      rows_pass<Fmt, T, G, 0, kPf>(panel, nb, tiled, 0, yp, y_stride, n < L ? n : L);
      if constexpr (T > G) rows_pass<Fmt, T, T - G, 0, kPrefetchNone>(panel, nb, tiled, G, yp, y_stride, n < L ? n : L);
      if constexpr (L < kRows) {  // the panel's second half
        if (n > L) {
          rows_pass<Fmt, T, G, L, kPrefetchNone>(panel, nb, tiled, 0, yp, y_stride, n - L);
          if constexpr (T > G) rows_pass<Fmt, T, T - G, L, kPrefetchNone>(panel, nb, tiled, G, yp, y_stride, n - L);
        }
      }
    }
  }
  static constexpr int kRowsBatchMax = ::wafer::kRowsBatchMax;
  static constexpr int kKBatchTile = 4;  // K-quant verification batches: tokens per tile
  template <class Fmt, int kPf>
  static bool rows_batch(const PackedMatrix& w, int n_tokens, int64_t panel_begin, int64_t panel_end,
                         const uint8_t* tiled, float* y, int64_t y_stride) {
    switch (n_tokens) {
      case 2: legacy_rows_batch<Fmt, 2, kPf>(w, panel_begin, panel_end, tiled, y, y_stride); return true;
      case 3: legacy_rows_batch<Fmt, 3, kPf>(w, panel_begin, panel_end, tiled, y, y_stride); return true;
      case 4: legacy_rows_batch<Fmt, 4, kPf>(w, panel_begin, panel_end, tiled, y, y_stride); return true;
      case 5: legacy_rows_batch<Fmt, 5, kPf>(w, panel_begin, panel_end, tiled, y, y_stride); return true;
      case 6: legacy_rows_batch<Fmt, 6, kPf>(w, panel_begin, panel_end, tiled, y, y_stride); return true;
      case 7: legacy_rows_batch<Fmt, 7, kPf>(w, panel_begin, panel_end, tiled, y, y_stride); return true;
      case 8: legacy_rows_batch<Fmt, 8, kPf>(w, panel_begin, panel_end, tiled, y, y_stride); return true;
      case 9: legacy_rows_batch<Fmt, 9, kPf>(w, panel_begin, panel_end, tiled, y, y_stride); return true;
      default: return false;
    }
  }

  // Copies tokens [t0, t0 + T) of Q8_0 rows x (with their side values) into buf
  // (T * nb * kLegacyTokenBytes bytes) in legacy_tile's layout.
  static void tile_acts(const QuantizedActs& x, int t0, int T, int offset, uint8_t* buf) {
    const int64_t nb = x.blocks();
    for (int64_t b = 0; b < nb; ++b) {
      uint8_t* tb = buf + b * T * kLegacyTokenBytes;
      float* d = reinterpret_cast<float*>(tb + T * 32);
      int32_t* sums = reinterpret_cast<int32_t*>(tb + T * 36);
      for (int t = 0; t < T; ++t) {
        __builtin_memcpy(tb + t * 32, x.rows + (t0 + t) * x.row_bytes + b * 34 + 2, 32);
        d[t] = x.d[(t0 + t) * nb + b];
        sums[t] = -offset * x.sums[(t0 + t) * nb + b];
      }
    }
  }

  // ---- K-quants: 256-column super-blocks, Q8_K activations -----------------------------

  // The kernels read Q8_K activations from a per-thread copy (tile_acts_k) in which each
  // token tile of T tokens is interleaved block by block: the T tokens' 256 quants, then
  // their T float scales, then T x 16 int32 values precomputed from the block sums (what
  // the weight type combines with them; see tile_acts_k). Every address in the kernels is
  // then a pointer plus a constant, and no per-block scalar work is left.
  static constexpr int kKTokenBytes = 256 + 4 + 64;  // per token and super-block
  template <int T>
  static const uint8_t* kq_qs(const uint8_t* tb, int t) { return tb + t * 256; }
  template <int T>
  static const float* kq_d(const uint8_t* tb, int t) { return reinterpret_cast<const float*>(tb + T * 256 + t * 4); }
  template <int T>
  static const int32_t* kq_extra(const uint8_t* tb, int t) {
    return reinterpret_cast<const int32_t*>(tb + T * 260 + t * 64);
  }
  static int32_t pack16(int a, int b) {
    return static_cast<int32_t>((static_cast<uint32_t>(static_cast<uint16_t>(b)) << 16) | static_cast<uint16_t>(a));
  }

  // Copies tokens [t0, t0 + T) of Q8_K rows x into buf (T * nb * kKTokenBytes bytes). The
  // extras: for Q4_K/Q5_K the sums of the 8 sub-blocks of 32 as int16 pairs (B0,B2) (B1,B3)
  // (B4,B6) (B5,B7), for the mins' madd16; for Q6_K -32 x the 16 sums of 16 (the offset of
  // its quants).
  static void tile_acts_k(const QuantizedActs& x, TensorType type, int t0, int T, uint8_t* buf) {
    const int64_t nb = x.blocks();
    for (int64_t b = 0; b < nb; ++b) {
      uint8_t* tb = buf + b * T * kKTokenBytes;
      for (int t = 0; t < T; ++t) {
        const uint8_t* blk = x.rows + (t0 + t) * x.row_bytes + b * 292;
        __builtin_memcpy(tb + t * 256, blk + 4, 256);
        __builtin_memcpy(tb + T * 256 + t * 4, blk, 4);
        int16_t bs[16];
        __builtin_memcpy(bs, blk + 260, 32);
        int32_t extra[16] = {};
        if (type == TensorType::Q6_K) {
          for (int j = 0; j < 16; ++j) extra[j] = -32 * bs[j];
        } else {
          int B[8];
          for (int j = 0; j < 8; ++j) B[j] = bs[2 * j] + bs[2 * j + 1];
          extra[0] = pack16(B[0], B[2]);
          extra[1] = pack16(B[1], B[3]);
          extra[2] = pack16(B[4], B[6]);
          extra[3] = pack16(B[5], B[7]);
        }
        __builtin_memcpy(tb + T * 260 + t * 64, extra, 64);
      }
    }
  }

  // Q4_K and Q5_K: x = d * sc[j] * q - dmin * m[j] over 8 sub-blocks of 32.
  template <bool kFive, int T, int lane0, int kPf>
  static void qk_tile(const uint8_t* panel, int64_t nb, const uint8_t* tiled, F* acc) {
    constexpr int kBlockBytes = kFive ? 2816 : 2304;
    constexpr int kQs = kFive ? 768 : 256;
    const I m4 = V::set1(0x0f0f0f0f), m6 = V::set1(0x3f3f3f3f), m_hi2 = V::set1(0x30303030);
    const I m_lo16 = V::set1(0x00ff00ff), m_byte = V::set1(0xff), m_bit = V::set1(0x10101010);
    for (int64_t b = 0; b < nb; ++b) {
      const uint8_t* blk = panel + b * kBlockBytes;
      if constexpr (kPf != kPrefetchNone && T <= kPrefetchMaxTokens && lane0 == 0) prefetch_ahead<kBlockBytes, kPf>(blk);
      const uint8_t* tb = tiled + b * T * kKTokenBytes;
      const F d = halves(blk, 0, lane0), dmin = halves(blk, 32, lane0);
      const I s0 = dword_row(blk, 64, 0, lane0), s1 = dword_row(blk, 64, 1, lane0), s2 = dword_row(blk, 64, 2, lane0);
      // Bytes of sc_lo = scales 0..3, sc_hi = scales 4..7, likewise the mins (repack.h).
      const I sc_lo = V::and_(s0, m6);
      const I sc_hi = V::or_(V::and_(s2, m4), V::and_(V::srl(s0, 2), m_hi2));
      const I mn_lo = V::and_(s1, m6);
      const I mn_hi = V::or_(V::and_(V::srl(s2, 4), m4), V::and_(V::srl(s1, 2), m_hi2));
      // Mins as int16 pairs (m0,m2) (m1,m3) (m4,m6) (m5,m7) for madd16 with the sums.
      const I mp[4] = {V::and_(mn_lo, m_lo16), V::and_(V::srl(mn_lo, 8), m_lo16), V::and_(mn_hi, m_lo16),
                       V::and_(V::srl(mn_hi, 8), m_lo16)};
      I isum[T];
      _Pragma("GCC unroll 16")
      for (int t = 0; t < T; ++t) isum[t] = V::set1(0);
      _Pragma("GCC unroll 16")
      for (int sub = 0; sub < 8; ++sub) {
        const int chunk = sub / 2;
        const bool high = sub & 1;
        const I sc = V::and_(V::srl(sub < 4 ? sc_lo : sc_hi, 8 * (sub % 4)), m_byte);
        I w[8];
        _Pragma("GCC unroll 16")
        for (int g = 0; g < 8; ++g) {
          I raw = dword_row(blk, kQs, chunk * 8 + g, lane0);
          w[g] = V::and_(high ? V::srl(raw, 4) : raw, m4);
          if (kFive) {
            // Bit 2*chunk (+1 for the high nibble) of each qh byte -> bit 4 of the quant.
            const int bit = 2 * chunk + (high ? 1 : 0);
            I qh = dword_row(blk, 256, g, lane0);
            I hb = bit <= 4 ? V::sll(qh, 4 - bit) : V::srl(qh, bit - 4);
            w[g] = V::or_(w[g], V::and_(hb, m_bit));
          }
        }
        _Pragma("GCC unroll 16")
        for (int t = 0; t < T; ++t) {
          const uint8_t* qa = kq_qs<T>(tb, t) + sub * 32;
          I s = V::set1(0);
          _Pragma("GCC unroll 16")
          for (int g = 0; g < 8; ++g) s = V::dot_u_bcast(s, w[g], qa + 4 * g);
          isum[t] = V::add(isum[t], V::mullo(s, sc));
        }
      }
      _Pragma("GCC unroll 16")
      for (int t = 0; t < T; ++t) {
        const int32_t* e = kq_extra<T>(tb, t);
        I msum = V::madd16(mp[0], V::bcast32(e));
        msum = V::add(msum, V::madd16(mp[1], V::bcast32(e + 1)));
        msum = V::add(msum, V::madd16(mp[2], V::bcast32(e + 2)));
        msum = V::add(msum, V::madd16(mp[3], V::bcast32(e + 3)));
        const F da = V::set1f(*kq_d<T>(tb, t));
        const F part = V::fnmadd(V::mul(dmin, da), V::to_float(msum), V::mul(V::mul(d, da), V::to_float(isum[t])));
        acc[t] = V::add_f(acc[t], part);
      }
    }
  }

  // Q6_K: x = d * sc[j] * (q - 32) over 16 sub-blocks of 16, signed 8-bit sc. The rows of
  // ql and qh are stored in the order this loop first reads them (repack.h): half h's
  // section at kQ6Half[h] holds ql rows 0..7 and qh rows 0..7 alternating, then ql rows 8..15.
  // Read in ggml's order (all ql, then all qh) the block streams from memory far slower:
  // the back-and-forth defeats the hardware prefetcher.
  static constexpr int kQ6Half[2] = {288, 1824};
  static constexpr int q6_ql(int h, int row) {
    return row < 8 ? kQ6Half[h] + row * 128 : kQ6Half[h] + 1024 + (row - 8) * 64;
  }
  static constexpr int q6_qh(int h, int row) { return kQ6Half[h] + 64 + row * 128; }
  template <int T, int lane0, int kPf>
  static void q6k_tile(const uint8_t* panel, int64_t nb, const uint8_t* tiled, F* acc) {
    constexpr int kBlockBytes = 3360, kScales = 32;
    const I m4 = V::set1(0x0f0f0f0f), m_hi2 = V::set1(0x30303030);
    for (int64_t b = 0; b < nb; ++b) {
      const uint8_t* blk = panel + b * kBlockBytes;
      if constexpr (kPf != kPrefetchNone && T <= kPrefetchMaxTokens && lane0 == 0) prefetch_ahead<kBlockBytes, kPf>(blk);
      const uint8_t* tb = tiled + b * T * kKTokenBytes;
      const F d = halves(blk, 0, lane0);
      I isum[T];
      _Pragma("GCC unroll 16")
      for (int t = 0; t < T; ++t) isum[t] = V::set1(0);
      _Pragma("GCC unroll 16")
      for (int h = 0; h < 2; ++h) {
        _Pragma("GCC unroll 16")
        for (int quarter = 0; quarter < 4; ++quarter) {
          // 8 dwords = elements 128h + 32 quarter + 0..31 = sub-blocks s0 and s0 + 1.
          I w[8];
          _Pragma("GCC unroll 16")
          for (int idx = 0; idx < 8; ++idx) {
            I ql = dword_row(blk, q6_ql(h, 8 * (quarter & 1) + idx), 0, lane0);
            I qh = dword_row(blk, q6_qh(h, idx), 0, lane0);
            I lo = V::and_(quarter >= 2 ? V::srl(ql, 4) : ql, m4);
            const int shift = 2 * quarter;  // qh bits shift..shift+1 -> bits 4..5
            I hi = V::and_(shift <= 4 ? V::sll(qh, 4 - shift) : V::srl(qh, shift - 4), m_hi2);
            w[idx] = V::or_(lo, hi);
          }
          const int s0 = 8 * h + 2 * quarter;
          const I sw = dword_row(blk, kScales, s0 / 4, lane0);
          const I sc0 = V::sra(V::sll(sw, 24 - 8 * (s0 % 4)), 24);
          const I sc1 = V::sra(V::sll(sw, 24 - 8 * (s0 % 4 + 1)), 24);
          _Pragma("GCC unroll 16")
          for (int t = 0; t < T; ++t) {
            const uint8_t* qa = kq_qs<T>(tb, t) + 128 * h + 32 * quarter;
            const int32_t* e = kq_extra<T>(tb, t);
            I a0 = V::bcast32(e + s0), a1 = V::bcast32(e + s0 + 1);
            _Pragma("GCC unroll 16")
            for (int idx = 0; idx < 4; ++idx) a0 = V::dot_u_bcast(a0, w[idx], qa + 4 * idx);
            _Pragma("GCC unroll 16")
            for (int idx = 4; idx < 8; ++idx) a1 = V::dot_u_bcast(a1, w[idx], qa + 4 * idx);
            isum[t] = V::add(isum[t], V::add(V::mullo(a0, sc0), V::mullo(a1, sc1)));
          }
        }
      }
      _Pragma("GCC unroll 16")
      for (int t = 0; t < T; ++t)
        acc[t] = V::fmadd(V::mul(d, V::set1f(*kq_d<T>(tb, t))), V::to_float(isum[t]), acc[t]);
    }
  }

  // ---- driver ---------------------------------------------------------------------------

  static int legacy_offset(TensorType type) {
    return type == TensorType::Q8_0 ? Q8_0::kOffset : type == TensorType::Q4_0 ? Q4_0::kOffset : Q5_0::kOffset;
  }
  static bool is_legacy(TensorType type) {
    return type == TensorType::Q8_0 || type == TensorType::Q4_0 || type == TensorType::Q5_0;
  }

  template <int T, int lane0, int kPf>
  static void tile(TensorType type, const uint8_t* panel, int64_t nb, const uint8_t* tiled, int t0, F* acc) {
    switch (type) {
      case TensorType::Q8_0: return legacy_tile<Q8_0, T, lane0>(panel, nb, tiled + t0 * nb * kLegacyTokenBytes, acc);
      case TensorType::Q4_0: return legacy_tile<Q4_0, T, lane0>(panel, nb, tiled + t0 * nb * kLegacyTokenBytes, acc);
      case TensorType::Q5_0: return legacy_tile<Q5_0, T, lane0>(panel, nb, tiled + t0 * nb * kLegacyTokenBytes, acc);
      case TensorType::Q4_K: return qk_tile<false, T, lane0, kPf>(panel, nb, tiled + t0 * nb * kKTokenBytes, acc);
      case TensorType::Q5_K: return qk_tile<true, T, lane0, kPf>(panel, nb, tiled + t0 * nb * kKTokenBytes, acc);
      case TensorType::Q6_K: return q6k_tile<T, lane0, kPf>(panel, nb, tiled + t0 * nb * kKTokenBytes, acc);
      default: return;
    }
  }

  // kPf only for tiles that prefetch (T <= kPrefetchMaxTokens): larger tiles are the same
  // code either way and are instantiated once.
  template <int T, int lane0, int kPf>
  static void tile_and_store(const PackedMatrix& w, const uint8_t* panel, int n_rows,
                             const uint8_t* tiled, int t0, float* y, int64_t y_stride) {
    F acc[T];
    _Pragma("GCC unroll 16")
    for (int t = 0; t < T; ++t) acc[t] = V::zero_f();
    tile<T, lane0, (T <= kPrefetchMaxTokens ? kPf : kPrefetchNone)>(w.type, panel, w.blocks_per_row(), tiled, t0, acc);
    _Pragma("GCC unroll 16")
    for (int t = 0; t < T; ++t) V::store(y + (t0 + t) * y_stride, acc[t], n_rows);
  }

  // Tokens [t_begin, t_end) (t_begin a multiple of kMaxTokens) in tiles of kMaxTokens,
  // then one smaller tile for the rest. lane0: the first row of the panel this lane group
  // computes (a constant, so every weight address is one too).
  template <int lane0, int kPf>
  static void run_panel(const PackedMatrix& w, const uint8_t* panel, int n_rows, int t_begin, int t_end,
                        const uint8_t* tiled, float* y, int64_t y_stride) {
    constexpr int M = V::kMaxTokens;
    int t0 = t_begin;
    for (; t0 + M <= t_end; t0 += M)
      tile_and_store<M, lane0, (M <= kPrefetchMaxTokens ? kPf : kPrefetchNone)>(w, panel, n_rows, tiled, t0, y, y_stride);
    switch (t_end - t0) {
      case 0: break;
      case 1: tile_and_store<1, lane0, kPf>(w, panel, n_rows, tiled, t0, y, y_stride); break;
      case 2: tile_and_store<2, lane0, kPf>(w, panel, n_rows, tiled, t0, y, y_stride); break;
      case 3: tile_and_store<3, lane0, kPf>(w, panel, n_rows, tiled, t0, y, y_stride); break;
      case 4: if constexpr (M > 4) tile_and_store<4, lane0, kPf>(w, panel, n_rows, tiled, t0, y, y_stride); break;
      case 5: if constexpr (M > 5) tile_and_store<5, lane0, kPf>(w, panel, n_rows, tiled, t0, y, y_stride); break;
      case 6: if constexpr (M > 6) tile_and_store<6, lane0, kPf>(w, panel, n_rows, tiled, t0, y, y_stride); break;
      case 7: if constexpr (M > 7) tile_and_store<7, lane0, kPf>(w, panel, n_rows, tiled, t0, y, y_stride); break;
      default: break;
    }
  }

  // Panels p and p + 1 of a Q8_0 or Q4_0 matrix (16-lane ISAs) over tokens [t_begin, t_end): the
  // full token tiles in parts of kPairTokens through legacy_tile_pair, a last smaller tile
  // panel by panel.
  static constexpr int kPairTokens = 4;
  template <class Fmt>
  static void run_panel_pair(const PackedMatrix& w, const uint8_t* panel0, const uint8_t* panel1, int64_t first_row,
                             int t_begin, int t_end, const uint8_t* tiled, float* y, int64_t y_stride) {
    constexpr int M = V::kMaxTokens;
    static_assert(M % kPairTokens == 0);
    const int64_t nb = w.blocks_per_row();
    const int64_t per_token = nb * kLegacyTokenBytes;
    const int n1 = static_cast<int>(w.rows - first_row - kRows < kRows ? w.rows - first_row - kRows : kRows);
    int t0 = t_begin;
    for (; t0 + M <= t_end; t0 += M) {
      const uint8_t* tile = tiled + t0 * per_token;
      _Pragma("GCC unroll 4")
      for (int h = 0; h < M; h += kPairTokens)
        pair_part<Fmt, kPairTokens, M>(panel0, panel1, nb, tile, h, t0, first_row, n1, y, y_stride);
    }
    switch (t_end - t0) {  // the last tile, smaller than M (a verification batch is one)
      case 0: break;
      case 1: pair_rest<Fmt, 1>(panel0, panel1, nb, tiled + t0 * per_token, t0, first_row, n1, y, y_stride); break;
      case 2: pair_rest<Fmt, 2>(panel0, panel1, nb, tiled + t0 * per_token, t0, first_row, n1, y, y_stride); break;
      case 3: pair_rest<Fmt, 3>(panel0, panel1, nb, tiled + t0 * per_token, t0, first_row, n1, y, y_stride); break;
      case 4: if constexpr (M > 4) pair_rest<Fmt, 4>(panel0, panel1, nb, tiled + t0 * per_token, t0, first_row, n1, y, y_stride); break;
      case 5: if constexpr (M > 5) pair_rest<Fmt, 5>(panel0, panel1, nb, tiled + t0 * per_token, t0, first_row, n1, y, y_stride); break;
      case 6: if constexpr (M > 6) pair_rest<Fmt, 6>(panel0, panel1, nb, tiled + t0 * per_token, t0, first_row, n1, y, y_stride); break;
      case 7: if constexpr (M > 7) pair_rest<Fmt, 7>(panel0, panel1, nb, tiled + t0 * per_token, t0, first_row, n1, y, y_stride); break;
      default: break;
    }
  }

  // Tokens [t_off, t_off + A) of a tile laid out for kTile tokens whose first token is t0,
  // through both panels (legacy_tile_pair), their sums stored in y.
  template <class Fmt, int A, int kTile>
  static void pair_part(const uint8_t* panel0, const uint8_t* panel1, int64_t nb, const uint8_t* tile, int t_off,
                        int t0, int64_t first_row, int n1, float* y, int64_t y_stride) {
    F acc0[A], acc1[A];
    for (int t = 0; t < A; ++t) acc0[t] = acc1[t] = V::zero_f();
    legacy_tile_pair<Fmt, A, kTile>(panel0, panel1, nb, tile, t_off, acc0, acc1);
    for (int t = 0; t < A; ++t) {
      V::store(y + (t0 + t_off + t) * y_stride + first_row, acc0[t], kRows);
      V::store(y + (t0 + t_off + t) * y_stride + first_row + kRows, acc1[t], n1);
    }
  }

  // A tile of T < kMaxTokens tokens (laid out as a tile of T) through two panels at once:
  // a batch of a few tokens (a speculative draft's verification) reads each weight vector
  // once for both panels' products, as a full tile does, not through run_panel's one-panel
  // tiles (which cost as much as a tile of 8 here). Up to kOnePassTokens in one pass over the
  // panels (2T sums and 2T accumulators still fit the 32 registers), more in parts of
  // kPairTokens: a second pass for one token costs nearly what the first did for four.
  static constexpr int kOnePassTokens = 6;
  template <class Fmt, int T>
  static void pair_rest(const uint8_t* panel0, const uint8_t* panel1, int64_t nb, const uint8_t* tile, int t0,
                        int64_t first_row, int n1, float* y, int64_t y_stride) {
    constexpr int A = T <= kOnePassTokens ? T : kPairTokens;
    pair_part<Fmt, A, T>(panel0, panel1, nb, tile, 0, t0, first_row, n1, y, y_stride);
    if constexpr (T > A) pair_part<Fmt, T - A, T>(panel0, panel1, nb, tile, A, t0, first_row, n1, y, y_stride);
  }

  // kPf: the kind of software prefetch in decode (see prefetch_ahead), or kPrefetchNone.
  template <int kPf>
  static void matmul(const PackedMatrix& w, const QuantizedActs& x, float* y, int64_t y_stride, int64_t panel_begin,
                     int64_t panel_end) {
    const size_t panel_bytes = w.panel_bytes();  // out of line: no inline code shared across ISAs
    // This thread's copy of the activations with each token tile interleaved block by
    // block (a small part of a prefill matmul's time, a few KB for a decoded token; the
    // buffer grows to the largest batch once, then is reused). A prefill copies each block of
    // tokens just before the panels pass it, so the block is in L2 when they do: copied
    // all at once, a batch larger than L2 (512 tokens of a 4,864-wide row are 3 MB) would
    // push the first block out before its turn.
    if (panel_begin >= panel_end) return;
    const bool legacy = is_legacy(w.type);
    static thread_local std::vector<uint8_t> buf;
    const int64_t per_token = x.blocks() * (legacy ? kLegacyTokenBytes : kKTokenBytes);
    const size_t need = static_cast<size_t>(x.n_tokens * per_token);
    if (buf.size() < need) buf.resize(need);
    const auto copy_tokens = [&](int t_begin, int t_end) {
      constexpr int M = V::kMaxTokens;
      for (int t0 = t_begin; t0 < t_end; t0 += M) {
        const int T = t_end - t0 < M ? t_end - t0 : M;
        if (legacy)
          tile_acts(x, t0, T, legacy_offset(w.type), buf.data() + t0 * per_token);
        else
          tile_acts_k(x, w.type, t0, T, buf.data() + t0 * per_token);
      }
    };
    const uint8_t* tiled = buf.data();
    if (x.n_tokens == 1) copy_tokens(0, 1);
    if (x.n_tokens == 1 && w.type == TensorType::Q8_0)
      return legacy_rows<Q8_0, kPf>(w, panel_begin, panel_end, tiled, y);
    if (x.n_tokens == 1 && w.type == TensorType::Q4_0)
      return legacy_rows<Q4_0, kPf>(w, panel_begin, panel_end, tiled, y);
    if (x.n_tokens == 1 && w.type == TensorType::Q5_0)
      return legacy_rows<Q5_0, kPf>(w, panel_begin, panel_end, tiled, y);
    if (x.n_tokens > 1 && x.n_tokens <= kRowsBatchMax && (w.type == TensorType::Q8_0 || w.type == TensorType::Q4_0)) {
      tile_acts(x, 0, x.n_tokens, legacy_offset(w.type), buf.data());  // one tile of all the tokens
      const bool done = w.type == TensorType::Q8_0
                            ? rows_batch<Q8_0, kPf>(w, x.n_tokens, panel_begin, panel_end, tiled, y, y_stride)
                            : rows_batch<Q4_0, kPf>(w, x.n_tokens, panel_begin, panel_end, tiled, y, y_stride);
      if (done) return;
    }
    // K-quant verification batches of 5 to kRowsBatchMax tokens on 16-lane ISAs: tiles of up
    // to kKBatchTile tokens, each panel through all of them before the next (the later tiles
    // read it from the cache). A tile of 5-8 tokens keeps too many sums and unpacked
    // weights for the registers; in tiles of 4 a Q6_K batch of 8 takes 1.5x one token's
    // time instead of 2.4x (docs/performance.md). 8-lane ISAs tile by 4 anyway.
    if constexpr (L == kRows) {
      if (!legacy && x.n_tokens > kKBatchTile && x.n_tokens <= kRowsBatchMax) {
        for (int t0 = 0; t0 < x.n_tokens; t0 += kKBatchTile)
          tile_acts_k(x, w.type, t0, x.n_tokens - t0 < kKBatchTile ? x.n_tokens - t0 : kKBatchTile,
                      buf.data() + t0 * per_token);
        for (int64_t p = panel_begin; p < panel_end; ++p) {
          const uint8_t* panel = w.data + static_cast<size_t>(p) * panel_bytes;
          const int64_t first_row = p * kRows;
          const int rows = static_cast<int>(w.rows - first_row < L ? w.rows - first_row : L);
          for (int t0 = 0; t0 < x.n_tokens; t0 += kKBatchTile)
            run_panel<0, kPf>(w, panel, rows, t0, x.n_tokens - t0 < kKBatchTile ? x.n_tokens : t0 + kKBatchTile,
                              tiled, y + first_row, y_stride);
        }
        return;
      }
    }
    // Token blocks that stay in L2 while the panels stream past (token_block.h).
    const int block = prefill_token_block(x.blocks() * (legacy ? kLegacyTokenBytes : kKTokenBytes), V::kMaxTokens);
    for (int b0 = 0; b0 < x.n_tokens; b0 += block) {
      const int b1 = x.n_tokens - b0 < block ? x.n_tokens : b0 + block;
      if (x.n_tokens > 1) copy_tokens(b0, b1);
      for (int64_t p = panel_begin; p < panel_end; ++p) {
        const uint8_t* panel = w.data + static_cast<size_t>(p) * panel_bytes;
        const int64_t first_row = p * kRows;
        const int64_t n = w.rows - first_row;  // rows of this panel (> 0)
        if constexpr (L == kRows) {
          if (p + 1 < panel_end && (w.type == TensorType::Q8_0 || w.type == TensorType::Q4_0)) {
            const uint8_t* next = panel + panel_bytes;
            if (w.type == TensorType::Q8_0)
              run_panel_pair<Q8_0>(w, panel, next, first_row, b0, b1, tiled, y, y_stride);
            else
              run_panel_pair<Q4_0>(w, panel, next, first_row, b0, b1, tiled, y, y_stride);
            ++p;
            continue;
          }
        }
        run_panel<0, kPf>(w, panel, n < L ? static_cast<int>(n) : L, b0, b1, tiled, y + first_row, y_stride);
        if constexpr (L < kRows) {  // an 8-lane ISA: the panel's second half
          static_assert(2 * L == kRows);
          if (n > L)
            run_panel<L, kPf>(w, panel, n < 2 * L ? static_cast<int>(n - L) : L, b0, b1, tiled, y + first_row + L,
                              y_stride);
        }
      }
    }
  }
};

}  // namespace wafer::simd
