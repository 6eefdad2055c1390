// Prefill attention over an F16 KV cache on the AMX BF16 tiles (TDPBF16PS), written once
// over the tile instructions (Tiles: TileHw, TileModel) and the AVX-512 vector traits V.
// The contract is SimdKernels::attend_f16's (dispatch.h), for batches of queries: the
// queries of several tokens and every head of a key/value group, each with its causal limit.
//
// Precision: about FP32's, not BF16's. Every operand is split into BF16 parts whose sum is
// the value: a key or value (F16, 11 significant bits) is exactly hi + lo, a query (scaled)
// or a softmax weight (FP32) is hi + mid + lo to 2^-21. Each product of two BF16 parts is
// exact in the tiles' FP32 sums; the five products taken (all but lo x lo, below 2^-21 of
// the product) give every score and output within a few 2^-21 of exact, summed in the
// tiles' order instead of the vector kernel's. The softmax is the vector kernel's
// arithmetic (FloatImpl::weight, no denormal weights), normalized at the end: the weights
// go into the tiles as e^(s - max), each output row is divided by its sum afterwards.
//
// Work per tile of 16 query rows: the scores against every key up to the tile's largest
// causal limit (4 tiles of 16 x 16 sums at a time), their softmax on the vector unit, the
// weights split into parts, then the weighted sum of values (4 tiles of 16 x 16 outputs:
// 64 dimensions at a time). Tiles 0..3 are the sums, 4..5 the A operands (query or weight
// parts), 6..7 the B operands (key or value parts) - two of each alternate, so the next
// operand loads while the last product runs (TDPBF16PS issues at the same rate whether or
// not it waits on the previous one's sums). The keys and
// values are converted once per call into the tiles' layout; every query tile reuses them.
//
// Pair order: a BF16 pair of a tile row holds elements k and 16 + k of a 32-element chunk
// (the A and B operands only need the same order; this one is lane-wise for 16-lane vectors).
#pragma once

#include <cstdint>
#include <cmath>
#include <cstring>
#include <vector>

#include "engine/kernels/amx/tile_config.h"
#include "engine/kernels/dispatch.h"
#include "engine/kernels/simd/float_kernels.h"

namespace wafer::simd {

template <class V, class Tiles>
struct AmxAttendImpl {
  using I = typename V::I;
  using F = typename V::F;
  using Float = FloatImpl<V>;
  static_assert(V::kLanes == 16, "a tile row of FP32 sums is one vector");

  static constexpr int kRows = 16;         // query rows per tile
  static constexpr int kTileBytes = 1024;  // one B operand: 16 rows x 64 bytes
  static constexpr int kKeyStep = 64;      // positions per pass of four score tiles
  // Splits of the queries and weights (3: hi, mid, lo) and of the keys and values (2).
  static constexpr int kAParts = 3;
  static constexpr int kBParts = 2;

  // What the kernel takes: the rest goes to the vector kernel.
  static bool handles(int dk, int dv) { return tiles_attend_shape(dk, dv); }

  static amx::TileConfig config() { return amx::full_tiles(); }

  // x as `parts` BF16 values whose sum is x to 2^-7 per part (parts[i] holds the bits in
  // the upper half of each lane): each part is what is left, truncated to BF16, and the
  // remainder after a truncation is exact in FP32. An F16 value is exactly two parts.
  template <int kParts>
  static void split(F x, I* parts) {
    const I mask = V::set1(static_cast<int32_t>(0xffff0000u));
    _Pragma("GCC unroll 3")
    for (int i = 0; i < kParts; ++i) {
      parts[i] = V::and_(V::bits(x), mask);
      if (i + 1 < kParts) x = V::subf(x, V::from_bits(parts[i]));
    }
  }
  // Dwords of BF16 pairs: lane k holds a's lane k (low half) and b's lane k (high half).
  static I pair(I a_bits, I b_bits) { return V::or_(V::srl(a_bits, 16), b_bits); }

  // The parts of two 16-element halves of a chunk as pairs, part i to out + i * part_stride.
  template <int kParts>
  static void store_pairs(F a, F b, uint8_t* out, int64_t part_stride) {
    I pa[kParts], pb[kParts];
    split<kParts>(a, pa);
    split<kParts>(b, pb);
    _Pragma("GCC unroll 3")
    for (int i = 0; i < kParts; ++i) V::storei(out + i * part_stride, pair(pa[i], pb[i]));
  }

  // The B operands of the scores: for key block kb (16 positions) and chunk c (32
  // dimensions), part i at kbuf + ((kb * chunks + c) * kBParts + i) * kTileBytes, row k
  // holding each key's dimensions 32c + k and 32c + 16 + k. Blocks at or past n_pos / 16
  // rounded up are zero up to n_pad.
  static void convert_keys(const uint16_t* keys, int n_pos, int n_pad, int dk, uint8_t* kbuf) {
    const int chunks = dk / 32, blocks = (n_pos + 15) / 16;
    for (int kb = 0; kb < n_pad / 16; ++kb)
      for (int c = 0; c < chunks; ++c) {
        uint8_t* o = kbuf + static_cast<int64_t>(kb * chunks + c) * kBParts * kTileBytes;
        if (kb >= blocks) {
          std::memset(o, 0, kBParts * kTileBytes);
          continue;
        }
        const uint16_t* src = keys + (static_cast<int64_t>(kb) * dk + c * 32) * 16;
        for (int k = 0; k < 16; ++k)
          store_pairs<kBParts>(V::half_to_float(src + k * 16), V::half_to_float(src + (16 + k) * 16), o + k * 64,
                               kTileBytes);
      }
  }

  // The B operands of the weighted sums: for chunk j (32 positions) and column tile d (16
  // dimensions), part i at vbuf + ((j * col_tiles + d) * kBParts + i) * kTileBytes, row k
  // holding positions 32j + k and 32j + 16 + k. Positions at or past n_pos are zero (their
  // weights are 0, and 0 x a stale value must not be NaN).
  static void convert_values(const uint16_t* values, int n_pos, int n_pad, int dv, uint8_t* vbuf) {
    const int col_tiles = dv / 16;
    alignas(64) static constexpr uint16_t kZeros[16] = {};
    for (int j = 0; j < n_pad / 32; ++j)
      for (int d = 0; d < col_tiles; ++d) {
        uint8_t* o = vbuf + static_cast<int64_t>(j * col_tiles + d) * kBParts * kTileBytes;
        for (int k = 0; k < 16; ++k) {
          const int p0 = 32 * j + k, p1 = p0 + 16;
          const uint16_t* a = p0 < n_pos ? values + static_cast<int64_t>(p0) * dv + d * 16 : kZeros;
          const uint16_t* b = p1 < n_pos ? values + static_cast<int64_t>(p1) * dv + d * 16 : kZeros;
          store_pairs<kBParts>(V::half_to_float(a), V::half_to_float(b), o + k * 64, kTileBytes);
        }
      }
  }

  // Row r of the A operands of the scores: query r x scale, its chunks as pairs, part i at
  // qbuf + i * q_part + r * dk * 2 (rows of dk BF16 values).
  static void convert_query(const float* q, float scale, int dk, uint8_t* row, int64_t q_part) {
    const F s = V::set1f(scale);
    for (int c = 0; c < dk / 32; ++c)
      store_pairs<kAParts>(V::mul(V::loadf(q + c * 32), s), V::mul(V::loadf(q + c * 32 + 16), s), row + c * 64,
                           q_part);
  }

  // Four products into sum tiles 0..3: A operand tile `A` times the B operands at b + t *
  // b_step (t = 0..3), loaded alternately into tiles 6 and 7.
  template <int A>
  static void four(const uint8_t* b, int64_t b_step) {
    Tiles::template load<6>(b, 64);
    Tiles::template dp_bf16<0, A, 6>();
    Tiles::template load<7>(b + b_step, 64);
    Tiles::template dp_bf16<1, A, 7>();
    Tiles::template load<6>(b + 2 * b_step, 64);
    Tiles::template dp_bf16<2, A, 6>();
    Tiles::template load<7>(b + 3 * b_step, 64);
    Tiles::template dp_bf16<3, A, 7>();
  }
  // Sum tiles 0..3 += the five products of one chunk: A parts at a + i * a_part (rows
  // a_stride apart), B parts of tile t at b + t * b_step + i * kTileBytes.
  static void chunk(const uint8_t* a, int64_t a_part, int64_t a_stride, const uint8_t* b, int64_t b_step) {
    static_assert(kAParts == 3 && kBParts == 2, "the five products below");
    Tiles::template load<4>(a, a_stride);  // hi
    four<4>(b, b_step);
    four<4>(b + kTileBytes, b_step);
    Tiles::template load<5>(a + a_part, a_stride);  // mid
    four<5>(b, b_step);
    four<5>(b + kTileBytes, b_step);
    Tiles::template load<4>(a + 2 * a_part, a_stride);  // lo
    four<4>(b, b_step);
  }
  static void zero_sums() {
    Tiles::template zero<0>();
    Tiles::template zero<1>();
    Tiles::template zero<2>();
    Tiles::template zero<3>();
  }
  // Sum tiles 0..3 to out + t * 16 floats, rows `stride` floats apart, `rows` of them.
  static void store_sums(float* out, int64_t stride, int rows) {
    if (rows == kRows) {
      Tiles::template store<0>(out, stride * 4);
      Tiles::template store<1>(out + 16, stride * 4);
      Tiles::template store<2>(out + 32, stride * 4);
      Tiles::template store<3>(out + 48, stride * 4);
      return;
    }
    alignas(64) float c[kRows * 64];
    Tiles::template store<0>(c, 256);
    Tiles::template store<1>(c + 16, 256);
    Tiles::template store<2>(c + 32, 256);
    Tiles::template store<3>(c + 48, 256);
    for (int r = 0; r < rows; ++r) std::memcpy(out + r * stride, c + r * 64, sizeof(float) * 64);
  }

  static int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

  // One row of scores (own of them; the row has span floats, a multiple of 32) to its
  // weights e^(s - max) (FloatImpl::weight: exactly 0 below the floor) as parts at prow +
  // i * p_part, positions at or past own 0; returns 1 / the weights' sum. The scores
  // between own and the next multiple of 32 become -inf (weight exactly 0) first, so
  // nothing past own is read.
  static float weigh_row(float* row, int own, int span, uint8_t* prow, int64_t p_part) {
    F vm = V::set1f(-INFINITY);
    int p = 0;
    for (; p + 16 <= own; p += 16) vm = V::maxf(vm, V::loadf(row + p));
    float mx = V::reduce_max(vm);
    for (; p < own; ++p) mx = row[p] > mx ? row[p] : mx;
    const int own_pad = static_cast<int>(round_up(own, 32));
    for (p = own; p < own_pad; ++p) row[p] = -INFINITY;
    const F vmax = V::set1f(mx);
    F vsum = V::zero_f();
    for (p = 0; p < own_pad; p += 32) {
      const F w0 = Float::weight(V::subf(V::loadf(row + p), vmax));
      const F w1 = Float::weight(V::subf(V::loadf(row + p + 16), vmax));
      vsum = V::add_f(vsum, V::add_f(w0, w1));
      store_pairs<kAParts>(w0, w1, prow + p * 2, p_part);
    }
    for (int i = 0; i < kAParts; ++i) std::memset(prow + i * p_part + own_pad * 2, 0, static_cast<size_t>(span - own_pad) * 2);
    return 1.0f / V::reduce_add(vsum);
  }

  static void attend(const float* q, int64_t q_stride, int n_q, const uint16_t* keys, const uint16_t* values,
                     int n_pos, int dk, int dv, float scale, float* out, int64_t out_stride, const int* n_pos_each) {
    if (n_q <= 0) return;
    const int n_pad = static_cast<int>(round_up(n_pos, kKeyStep));
    const int q_pad = static_cast<int>(round_up(n_q, kRows));
    const int chunks = dk / 32, col_tiles = dv / 16;
    // Per thread, every part on a 64-byte line (tile rows split across lines load slowly).
    const int64_t k_bytes = int64_t{n_pad} / 16 * chunks * kBParts * kTileBytes;
    const int64_t v_bytes = int64_t{n_pad} / 32 * col_tiles * kBParts * kTileBytes;
    const int64_t q_part = int64_t{q_pad} * dk * 2;
    const int64_t s_bytes = int64_t{kRows} * n_pad * 4;
    const int64_t p_part = int64_t{kRows} * n_pad * 2;
    static thread_local std::vector<uint8_t> buffer;
    const size_t need = static_cast<size_t>(k_bytes + v_bytes + kAParts * q_part + s_bytes + kAParts * p_part + 64);
    if (buffer.size() < need) buffer.resize(need);
    uint8_t* const kbuf = buffer.data() + (64 - reinterpret_cast<uintptr_t>(buffer.data()) % 64) % 64;
    uint8_t* const vbuf = kbuf + k_bytes;
    uint8_t* const qbuf = vbuf + v_bytes;
    float* const s = reinterpret_cast<float*>(qbuf + kAParts * q_part);
    uint8_t* const pbuf = reinterpret_cast<uint8_t*>(s) + s_bytes;

    convert_keys(keys, n_pos, n_pad, dk, kbuf);
    convert_values(values, n_pos, n_pad, dv, vbuf);
    for (int r = 0; r < q_pad; ++r) {
      uint8_t* row = qbuf + int64_t{r} * dk * 2;
      if (r < n_q) convert_query(q + r * q_stride, scale, dk, row, q_part);
      else
        for (int i = 0; i < kAParts; ++i) std::memset(row + i * q_part, 0, static_cast<size_t>(dk) * 2);
    }

    Tiles::load_config(config());
    const int64_t k_step = int64_t{chunks} * kBParts * kTileBytes;  // one key block to the next
    const int64_t v_step = int64_t{kBParts} * kTileBytes;           // one column tile to the next
    for (int m0 = 0; m0 < n_q; m0 += kRows) {
      const int rows = n_q - m0 < kRows ? n_q - m0 : kRows;
      int limit = 0;
      for (int r = 0; r < rows; ++r) {
        const int own = n_pos_each ? n_pos_each[m0 + r] : n_pos;
        limit = own > limit ? own : limit;
      }
      const int span = static_cast<int>(round_up(limit, kKeyStep));  // positions this tile reads
      // Scores: rows of n_pad floats.
      for (int p0 = 0; p0 < span; p0 += kKeyStep) {
        zero_sums();
        for (int c = 0; c < chunks; ++c)
          chunk(qbuf + int64_t{m0} * dk * 2 + c * 64, q_part, dk * 2,
                kbuf + (int64_t{p0 / 16} * chunks + c) * kBParts * kTileBytes, k_step);
        store_sums(s + p0, n_pad, kRows);
      }
      // The weights of each real row: e^(s - max) over its own positions, 0 after them, as
      // parts (rows of n_pad BF16 values; rows past the queries zero); 1 / their sum.
      alignas(64) float inv[kRows];
      for (int r = 0; r < kRows; ++r) {
        uint8_t* prow = pbuf + int64_t{r} * n_pad * 2;
        if (r >= rows) {
          for (int i = 0; i < kAParts; ++i) std::memset(prow + i * p_part, 0, static_cast<size_t>(span) * 2);
          continue;
        }
        inv[r] = weigh_row(s + int64_t{r} * n_pad, n_pos_each ? n_pos_each[m0 + r] : n_pos, span, prow, p_part);
      }
      // Weighted sums of values, 64 dimensions (four column tiles) at a time, each row then
      // divided by its weights' sum.
      for (int d0 = 0; d0 < col_tiles; d0 += 4) {
        zero_sums();
        for (int j = 0; j < span / 32; ++j)
          chunk(pbuf + j * 64, p_part, int64_t{n_pad} * 2, vbuf + (int64_t{j} * col_tiles + d0) * v_step, v_step);
        float* o = out + m0 * out_stride + d0 * 16;
        store_sums(o, out_stride, rows);
        for (int r = 0; r < rows; ++r) {
          const F f = V::set1f(inv[r]);
          _Pragma("GCC unroll 4")
          for (int v = 0; v < 4; ++v) V::storef(o + r * out_stride + v * 16, V::mul(V::loadf(o + r * out_stride + v * 16), f));
        }
      }
    }
    Tiles::release();
  }
};

}  // namespace wafer::simd
