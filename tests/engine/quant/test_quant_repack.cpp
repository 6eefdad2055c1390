// repack() against the layout quant_repack.h documents, byte by byte: for Q8_0, Q4_0 and
// Q5_0, each row's scale at d[r], dword g of its quants at (g * 16 + r) * 4 of their section
// (Q8_0's stored + 128), rows past the matrix zero; every format keeps the bytes of the
// blocks it came from (the same multiset of bytes, Q8_0's quants flipped back); and a
// panel range writes exactly those panels.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "engine/quant/quant_repack.h"

using namespace wafer;

namespace {

struct Legacy {
  TensorType type;
  size_t block_bytes;  // ggml block
  size_t qh_bytes;     // Q5_0's high bits (between the scale and the nibbles)
  size_t q_dwords;     // dwords of quants per row and block
};

std::vector<uint8_t> random_bytes(size_t n, std::mt19937& rng) {
  std::vector<uint8_t> v(n);
  std::uniform_int_distribution<int> byte(0, 255);
  for (auto& b : v) b = static_cast<uint8_t>(byte(rng));
  return v;
}

}  // namespace

TEST_CASE("repack lays legacy blocks out as documented", "[quant]") {
  std::mt19937 rng(11);
  for (const Legacy& f : {Legacy{TensorType::Q8_0, 34, 0, 8}, Legacy{TensorType::Q4_0, 18, 0, 4},
                          Legacy{TensorType::Q5_0, 22, 4, 4}}) {
    const int64_t rows = 37, cols = 96, nb = cols / 32;  // 37: a last panel of 5 rows
    const std::vector<uint8_t> src = random_bytes(static_cast<size_t>(rows * nb) * f.block_bytes, rng);
    std::vector<uint8_t> dst(packed_bytes(f.type, rows, cols), 0xee);
    REQUIRE(repack(f.type, src.data(), rows, cols, dst.data()));
    const size_t pblock = packed_block_bytes(f.type);
    const size_t q_section = 32 + (f.qh_bytes ? 64 : 0);
    const uint8_t flip = f.type == TensorType::Q8_0 ? 0x80 : 0;
    for (int64_t p = 0; p < (rows + 15) / 16; ++p)
      for (int64_t b = 0; b < nb; ++b) {
        const uint8_t* out = dst.data() + (static_cast<size_t>(p * nb + b)) * pblock;
        for (int r = 0; r < 16; ++r) {
          INFO(tensor_type_name(f.type) << " panel " << p << " block " << b << " row " << r);
          const int64_t row = p * 16 + r;
          const uint8_t* blk = row < rows ? src.data() + static_cast<size_t>(row * nb + b) * f.block_bytes : nullptr;
          for (int i = 0; i < 2; ++i) CHECK(out[2 * r + i] == (blk ? blk[i] : 0));
          for (size_t i = 0; f.qh_bytes && i < 4; ++i) CHECK(out[32 + 4 * r + i] == (blk ? blk[2 + i] : 0));
          for (size_t g = 0; g < f.q_dwords; ++g)
            for (size_t i = 0; i < 4; ++i) {
              const uint8_t want = blk ? static_cast<uint8_t>(blk[2 + f.qh_bytes + 4 * g + i] ^ flip) : 0;
              CHECK(out[q_section + (g * 16 + static_cast<size_t>(r)) * 4 + i] == want);
            }
        }
      }
  }
}

TEST_CASE("repack keeps every byte of the blocks, for every packable type", "[quant]") {
  std::mt19937 rng(12);
  struct Type {
    TensorType type;
    int64_t block_elems;
    size_t block_bytes;
  };
  for (const Type& t : {Type{TensorType::Q8_0, 32, 34}, Type{TensorType::Q4_0, 32, 18}, Type{TensorType::Q5_0, 32, 22},
                        Type{TensorType::Q4_K, 256, 144}, Type{TensorType::Q5_K, 256, 176},
                        Type{TensorType::Q6_K, 256, 210}}) {
    INFO(tensor_type_name(t.type));
    const int64_t rows = 32, cols = 2 * t.block_elems;  // whole panels: no padding
    std::vector<uint8_t> src = random_bytes(static_cast<size_t>(rows * 2) * t.block_bytes, rng);
    std::vector<uint8_t> dst(packed_bytes(t.type, rows, cols));
    REQUIRE(dst.size() == src.size());  // the same bytes, reordered
    REQUIRE(repack(t.type, src.data(), rows, cols, dst.data()));
    if (t.type == TensorType::Q8_0)  // quants stored + 128: flip them back to compare
      for (size_t blk = 0; blk < dst.size() / 544; ++blk)
        for (size_t i = 32; i < 544; ++i) dst[blk * 544 + i] ^= 0x80;
    std::sort(src.begin(), src.end());
    std::sort(dst.begin(), dst.end());
    CHECK(src == dst);
  }
}

TEST_CASE("repack of a panel range writes those panels and nothing else", "[quant]") {
  std::mt19937 rng(13);
  const int64_t rows = 100, cols = 64;  // 7 panels, the last of 4 rows
  const std::vector<uint8_t> src = random_bytes(static_cast<size_t>(rows * 2) * 34, rng);
  std::vector<uint8_t> whole(packed_bytes(TensorType::Q8_0, rows, cols));
  REQUIRE(repack(TensorType::Q8_0, src.data(), rows, cols, whole.data()));
  const size_t panel = 2 * packed_block_bytes(TensorType::Q8_0);
  for (auto [pb, pe] : {std::pair<int64_t, int64_t>{0, 3}, {3, 7}, {6, 7}, {2, 2}}) {
    INFO("panels " << pb << ".." << pe);
    std::vector<uint8_t> part(whole.size(), 0xee);
    REQUIRE(repack(TensorType::Q8_0, src.data(), rows, cols, part.data(), pb, pe));
    for (int64_t p = 0; p < 7; ++p) {
      const bool in = p >= pb && p < pe;
      const uint8_t* got = part.data() + p * panel;
      if (in) CHECK(std::memcmp(got, whole.data() + p * panel, panel) == 0);
      else CHECK(std::all_of(got, got + panel, [](uint8_t b) { return b == 0xee; }));
    }
  }
}
