// The software model of the AMX tile instructions (engine/kernels/amx/tile_model.h), which
// the tile kernels are tested on where the CPU has no AMX: its TDPBSSD, loads and stores
// against values worked out by hand from the Intel SDM's definitions, and its
// configuration rules.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>

#include "engine/kernels/amx/tile_model.h"

using wafer::amx::TileConfig;
using wafer::amx::TileModel;

namespace {

// C: 2 rows x 2 dwords; A: 2 rows x 8 bytes (K = 8); B: 2 rows x 8 bytes.
TileConfig small_config() {
  TileConfig c;
  c.palette = 1;
  c.rows[0] = 2;
  c.colsb[0] = 8;
  c.rows[2] = 2;
  c.colsb[2] = 8;
  c.rows[4] = 2;
  c.colsb[4] = 8;
  return c;
}

}  // namespace

TEST_CASE("the tile model's TDPBSSD multiplies signed A bytes by signed B bytes and accumulates") {
  TileModel::load_config(small_config());
  // A row m: 8 signed bytes, read with a stride of 16 (the bytes between rows are skipped).
  const int8_t a[2][16] = {{1, -2, 3, -4, 5, 6, 7, 8, 99, 99, 99, 99, 99, 99, 99, 99},
                           {-128, 0, 0, 0, 0, 0, 0, 127, 99, 99, 99, 99, 99, 99, 99, 99}};
  // B row k holds 4 bytes for each of C's 2 columns: column n uses bytes 4n..4n+3.
  const uint8_t b[2][8] = {{1, 1, 1, 1, 200, 0, 0, 255}, {2, 0, 0, 1, 0, 0, 0, 0}};
  const int32_t c0[2][2] = {{10, -10}, {1000000, 0}};
  TileModel::load<2>(a, 16);
  TileModel::load<4>(b, 8);
  TileModel::load<0>(c0, 8);
  TileModel::dp_ss<0, 2, 4>();
  int32_t c[2][2] = {};
  TileModel::store<0>(c, 8);
  // c[m][n] = c0[m][n] + sum_k sum_i a[m][4k+i] * b[k][4n+i], B's bytes signed (200 is -56,
  // 255 is -1):
  // m=0, n=0: 10 + (1-2+3-4)*1 + (5*2 + 8*1) = 10 - 2 + 18 = 26
  // m=0, n=1: -10 + 1*(-56) + (-4)*(-1) = -62
  // m=1, n=0: 1000000 - 128*1 + 127*1 = 999999
  // m=1, n=1: (-128)*(-56) = 7168
  CHECK(c[0][0] == 26);
  CHECK(c[0][1] == -62);
  CHECK(c[1][0] == 999999);
  CHECK(c[1][1] == 7168);
  TileModel::release();
}

TEST_CASE("the tile model loads only the configured shape, zeroes the rest and stores it back") {
  TileConfig cfg = small_config();
  cfg.rows[1] = 3;
  cfg.colsb[1] = 5;
  TileModel::load_config(cfg);
  uint8_t src[3][7];
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < 7; ++i) src[r][i] = static_cast<uint8_t>(10 * r + i + 1);
  TileModel::load<1>(src, 7);
  uint8_t out[3][9];
  std::memset(out, 0xee, sizeof out);
  TileModel::store<1>(out, 9);
  for (int r = 0; r < 3; ++r) {
    for (int i = 0; i < 5; ++i) CHECK(out[r][i] == src[r][i]);
    for (int i = 5; i < 9; ++i) CHECK(out[r][i] == 0xee);  // past the configured bytes: untouched
  }
  // The register itself holds zeros past the shape.
  const auto& s = TileModel::state();
  CHECK(s.data[1][0][5] == 0);
  CHECK(s.data[1][3][0] == 0);
  TileModel::zero<1>();
  TileModel::store<1>(out, 9);
  CHECK(out[2][4] == 0);
  TileModel::release();
  CHECK_FALSE(TileModel::state().configured);
}

TEST_CASE("the tile model's product wraps like the hardware's 32-bit accumulators") {
  TileModel::load_config(small_config());
  const int32_t c0[2][2] = {{INT32_MAX, 0}, {INT32_MIN, 0}};
  int8_t a[2][8] = {};
  a[0][0] = 1;
  a[1][0] = -1;
  uint8_t b[2][8] = {};
  b[0][0] = 1;
  TileModel::load<0>(c0, 8);
  TileModel::load<2>(a, 8);
  TileModel::load<4>(b, 8);
  TileModel::dp_ss<0, 2, 4>();
  int32_t c[2][2];
  TileModel::store<0>(c, 8);
  CHECK(c[0][0] == INT32_MIN);
  CHECK(c[1][0] == INT32_MAX);
  TileModel::release();
}
