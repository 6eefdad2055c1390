// Weight matrices repacked at load into the layout the SIMD kernels stream: rows are
// grouped into panels of 16, and within a panel the blocks of the 16 rows are interleaved
// so that one 64-byte load holds 4 consecutive quants of each of the 16 rows. One
// broadcast of 4 activation quants then feeds a single VNNI instruction (vpdpbusd) that
// advances all 16 dot products at once, instead of 16 horizontal reductions per block.
//
// A packed block of a panel ("x16 block") holds exactly the bytes of the 16 ggml blocks
// it came from, only reordered: the decode kernels read as many bytes per token as
// llama.cpp does. Each field is stored "dword-interleaved": dword g of row r sits at byte
// (g * 16 + r) * 4 of its section; halves (scales) are stored as 16 consecutive values.
//
//   Q8_0  (544 B / 32 cols):  d[16] | q[8 dwords x 16 rows], q stored as (q ^ 0x80) = q + 128
//   Q4_0  (288 B / 32 cols):  d[16] | qs[4 x 16]      (ggml nibble order kept)
//   Q5_0  (352 B / 32 cols):  d[16] | qh[1 x 16] | qs[4 x 16]
//   Q4_K (2304 B / 256 cols): d[16] | dmin[16] | scales[3 x 16] | qs[32 x 16]
//   Q5_K (2816 B / 256 cols): d[16] | dmin[16] | scales[3 x 16] | qh[8 x 16] | qs[32 x 16]
//   Q6_K (3360 B / 256 cols): d[16] | scales[4 x 16] | half 0 | half 1, where half h
//        (ggml's elements 128h..128h+127) is 1536 B: ql rows 16h+0..7 alternating with
//        qh rows 8h+0..7 (ql, qh, ql, qh, ... one 64-byte row each), then ql rows 16h+8..15
//
// Q6_K is the one type whose rows are not in ggml's order: its kernel reads them in the
// order above, and reading ql then qh in two far-apart streams ran at a third of the
// memory bandwidth (the hardware prefetcher loses track of the back-and-forth).
//
// Rows past the end of the matrix in its last panel are zero (scale 0), so kernels can
// always compute whole panels and store only the rows that exist.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/quant/tensor_types.h"

namespace wafer {

inline constexpr int kPanelRows = 16;

// Whether a weight type has a packed layout (and SIMD kernels).
bool is_packable(TensorType type);

// Bytes of one packed block (16 rows x block_elems(type) columns); 0 if not packable.
size_t packed_block_bytes(TensorType type);

// A repacked matrix: rows x cols of `type`, panels of 16 rows one after the other, each
// panel cols / block_elems blocks long. Does not own `data`.
struct PackedMatrix {
  TensorType type = TensorType::F32;
  int64_t rows = 0;
  int64_t cols = 0;
  const uint8_t* data = nullptr;

  int64_t panels() const { return (rows + kPanelRows - 1) / kPanelRows; }
  int64_t blocks_per_row() const;
  size_t panel_bytes() const;
  const uint8_t* panel(int64_t p) const { return data + static_cast<size_t>(p) * panel_bytes(); }
};

// Bytes that repack() writes for a rows x cols matrix (rows rounded up to whole panels),
// or 0 when the type is not packable or cols is not a whole number of blocks.
size_t packed_bytes(TensorType type, int64_t rows, int64_t cols);

// Repacks panels [panel_begin, panel_end) of a ggml row-major matrix (`src`, rows of
// row_bytes(type, cols)) into `dst`, which must hold packed_bytes(...) bytes: panel p is
// written at dst + p * panel_bytes. Split by panels so threads can repack their own slice
// (first touch puts the pages near the thread that will read them). Returns false when
// the type is not packable or cols is not a whole number of blocks.
bool repack(TensorType type, const void* src, int64_t rows, int64_t cols, uint8_t* dst,
            int64_t panel_begin, int64_t panel_end);

// Whole-matrix convenience form.
inline bool repack(TensorType type, const void* src, int64_t rows, int64_t cols, uint8_t* dst) {
  return repack(type, src, rows, cols, dst, 0, (rows + kPanelRows - 1) / kPanelRows);
}

}  // namespace wafer
