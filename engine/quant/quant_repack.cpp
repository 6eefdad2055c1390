#include "engine/quant/quant_repack.h"

#include <cstring>
#include <vector>

namespace wafer {
namespace {

// One field of a ggml block and where its 16 copies go in the packed block.
struct Field {
  uint32_t src_offset;  // byte offset in the ggml block
  uint32_t dwords;      // 0: a half (2 bytes), stored as 16 consecutive halves
  uint32_t dst_offset;  // byte offset of the section in the packed block
  uint8_t xor_mask;     // applied to every byte (Q8_0: signed -> offset-128 unsigned)
  uint32_t row_step = 64;  // bytes from dword row g to g + 1 of the section (128: two fields interleaved)
};

struct Layout {
  TensorType type;
  uint32_t block_elems;
  uint32_t block_bytes;  // ggml block
  std::vector<Field> fields;
};

// The sections of each packed block; offsets as documented in repack.h.
const std::vector<Layout>& layouts() {
  static const std::vector<Layout> kLayouts = {
      {TensorType::Q8_0, 32, 34, {{0, 0, 0, 0}, {2, 8, 32, 0x80}}},
      {TensorType::Q4_0, 32, 18, {{0, 0, 0, 0}, {2, 4, 32, 0}}},
      {TensorType::Q5_0, 32, 22, {{0, 0, 0, 0}, {2, 1, 32, 0}, {6, 4, 96, 0}}},
      {TensorType::Q4_K, 256, 144, {{0, 0, 0, 0}, {2, 0, 32, 0}, {4, 3, 64, 0}, {16, 32, 256, 0}}},
      {TensorType::Q5_K, 256, 176,
       {{0, 0, 0, 0}, {2, 0, 32, 0}, {4, 3, 64, 0}, {16, 8, 256, 0}, {48, 32, 768, 0}}},
      // Q6_K in the order q6k_tile first touches its lines (repack.h): 64-byte rows of ql
      // and qh alternate where a quarter uses both.
      {TensorType::Q6_K, 256, 210,
       {{208, 0, 0, 0},
        {192, 4, 32, 0},
        {0, 8, 288, 0, 128},
        {128, 8, 352, 0, 128},
        {32, 8, 1312, 0},
        {64, 8, 1824, 0, 128},
        {160, 8, 1888, 0, 128},
        {96, 8, 2848, 0}}},
  };
  return kLayouts;
}

const Layout* find_layout(TensorType type) {
  for (const auto& l : layouts())
    if (l.type == type) return &l;
  return nullptr;
}

// Places row r's copy of `f` (taken from ggml block `src`, or zeros) in packed block `dst`:
// a dword at a time, the mask applied to its four bytes at once.
void place(const Field& f, const uint8_t* src, int r, uint8_t* dst) {
  if (f.dwords == 0) {
    uint8_t* out = dst + f.dst_offset + 2 * r;
    if (src)
      std::memcpy(out, src + f.src_offset, 2);
    else
      std::memset(out, 0, 2);
    return;
  }
  uint8_t* out = dst + f.dst_offset + r * 4;
  if (!src) {
    for (uint32_t g = 0; g < f.dwords; ++g) std::memset(out + g * f.row_step, 0, 4);
    return;
  }
  const uint32_t mask = f.xor_mask * 0x01010101u;
  const uint8_t* in = src + f.src_offset;
  for (uint32_t g = 0; g < f.dwords; ++g) {
    uint32_t v;
    std::memcpy(&v, in + 4 * g, 4);
    v ^= mask;
    std::memcpy(out + g * f.row_step, &v, 4);
  }
}

}  // namespace

bool is_packable(TensorType type) { return find_layout(type) != nullptr; }

size_t packed_block_bytes(TensorType type) {
  const Layout* l = find_layout(type);
  return l ? static_cast<size_t>(l->block_bytes) * kPanelRows : 0;
}

int64_t PackedMatrix::blocks_per_row() const {
  const Layout* l = find_layout(type);
  return l ? cols / l->block_elems : 0;
}

size_t PackedMatrix::panel_bytes() const {
  return static_cast<size_t>(blocks_per_row()) * packed_block_bytes(type);
}

size_t packed_bytes(TensorType type, int64_t rows, int64_t cols) {
  const Layout* l = find_layout(type);
  if (!l || rows < 0 || cols <= 0 || cols % l->block_elems != 0) return 0;
  int64_t panels = (rows + kPanelRows - 1) / kPanelRows;
  return static_cast<size_t>(panels) * static_cast<size_t>(cols / l->block_elems) * packed_block_bytes(type);
}

bool repack(TensorType type, const void* src, int64_t rows, int64_t cols, uint8_t* dst,
            int64_t panel_begin, int64_t panel_end) {
  const Layout* l = find_layout(type);
  if (!l || rows < 0 || cols <= 0 || cols % l->block_elems != 0) return false;
  const int64_t nb = cols / l->block_elems;
  const size_t src_row = static_cast<size_t>(nb) * l->block_bytes;
  const size_t pblock = packed_block_bytes(type);
  const auto* in = static_cast<const uint8_t*>(src);
  for (int64_t p = panel_begin; p < panel_end; ++p) {
    uint8_t* panel = dst + static_cast<size_t>(p) * static_cast<size_t>(nb) * pblock;
    for (int64_t b = 0; b < nb; ++b) {
      uint8_t* out = panel + static_cast<size_t>(b) * pblock;
      for (int r = 0; r < kPanelRows; ++r) {
        const int64_t row = p * kPanelRows + r;
        const uint8_t* blk = row < rows ? in + static_cast<size_t>(row) * src_row + static_cast<size_t>(b) * l->block_bytes : nullptr;
        for (const Field& f : l->fields) place(f, blk, r, out);
      }
    }
  }
  return true;
}

}  // namespace wafer
