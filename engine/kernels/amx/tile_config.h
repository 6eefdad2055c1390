// The AMX tile configuration block (Intel SDM, LDTILECFG): 64 bytes that give each of the
// eight tile registers its shape. Palette 1 is the only one defined: tiles of up to 16
// rows of up to 64 bytes. Entries for tiles 8..15 and the reserved bytes must be zero.
#pragma once

#include <cstdint>

namespace wafer::amx {

struct alignas(64) TileConfig {
  uint8_t palette = 0;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};  // bytes per row, per tile
  uint8_t rows[16] = {};
};
static_assert(sizeof(TileConfig) == 64, "LDTILECFG reads exactly 64 bytes");

inline constexpr int kMaxTileRows = 16;
inline constexpr int kMaxTileBytes = 64;  // per row

// Palette 1 with all eight tiles at their largest, 16 rows x 64 bytes (the BF16 kernels:
// FP32 sums of 16 x 16, BF16 operands of 16 x 32 or 16 pair rows x 16).
inline TileConfig full_tiles() {
  TileConfig c;
  c.palette = 1;
  for (int t = 0; t < 8; ++t) {
    c.rows[t] = kMaxTileRows;
    c.colsb[t] = kMaxTileBytes;
  }
  return c;
}

}  // namespace wafer::amx
