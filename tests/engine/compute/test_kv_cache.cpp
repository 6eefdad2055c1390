// KV cache: sizing from the requested context, room checks with clear errors, truncation,
// an explicit deep copy, and the transposed key blocks.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "engine/quant/float16.h"
#include "engine/compute/kv_cache.h"
#include "engine/model/model_config.h"
#include "engine/quant/quant.h"

using namespace wafer;

namespace {

ModelConfig small_config() {
  ModelConfig c;
  c.arch = find_architecture("llama");
  c.n_layer = 3;
  c.n_head = 4;
  c.n_head_kv = 2;
  c.head_dim_k = c.head_dim_v = 8;
  return c;
}

}  // namespace

TEST_CASE("kv cache: sized from the context", "[kv_cache]") {
  auto kv = KvCache::create(small_config(), 100);
  REQUIRE(kv.ok());
  CHECK(kv->capacity() == 100);
  CHECK(kv->size() == 0);
  // Keys are stored in whole blocks of 16 positions: 100 -> 112.
  CHECK(kv->bytes() == 3u * 2 * (8 * 112 + 8 * 100) * sizeof(float));
  CHECK_FALSE(KvCache::create(small_config(), 0).ok());
  auto huge = KvCache::create(small_config(), 2'000'000'000);
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.error().message.find("MiB") != std::string::npos);
}

TEST_CASE("kv cache: room, append, truncate", "[kv_cache]") {
  auto kv = KvCache::create(small_config(), 10);
  REQUIRE(kv.ok());
  CHECK(kv->check_room(10).ok());
  auto full = kv->check_room(11);
  REQUIRE_FALSE(full.ok());
  CHECK(full.error().message == "context full: 0 + 11 tokens exceed the context of 10 tokens");
  kv->append(7);
  CHECK(kv->check_room(3).ok());
  CHECK_FALSE(kv->check_room(4).ok());
  kv->truncate(5);
  CHECK(kv->size() == 5);
  kv->truncate(9);  // cannot grow by truncating
  CHECK(kv->size() == 5);
  kv->truncate(-1);
  CHECK(kv->size() == 0);
}

TEST_CASE("kv cache: per layer and head slots, deep copy", "[kv_cache]") {
  auto kv = KvCache::create(small_config(), 4);
  REQUIRE(kv.ok());
  std::vector<float> key(8, 0.0f), got(8);
  key[7] = 1.5f;
  key[2] = -0.25f;
  kv->set_key(2, 1, 3, key.data());
  std::vector<float> value(8, 0.0f);
  value[0] = -2.0f;
  kv->set_value(0, 0, 0, value.data());
  kv->append(4);
  // Keys are transposed in blocks of 16 positions: dimension i of position p at
  // (p / 16 * head_dim + i) * 16 + p % 16.
  CHECK(kv->keys(2, 1)[7 * 16 + 3] == 1.5f);
  CHECK(kv->keys(2, 1)[2 * 16 + 3] == -0.25f);
  CHECK(kv->key(2, 1, 3, 7) == 1.5f);
  CHECK(kv->key(2, 0, 3, 7) == 0.0f);  // another head
  CHECK(kv->key(1, 1, 3, 7) == 0.0f);  // another layer
  kv->get_key(2, 1, 3, got.data());
  CHECK(got == key);
  // Values: positions of one head are contiguous at a stride of head_dim.
  CHECK(kv->value(0, 0, 0, 0) == -2.0f);
  CHECK(kv->values(0, 0)[0] == -2.0f);
  KvCache copy = kv->copy();
  CHECK(copy.size() == 4);
  CHECK(copy.key(2, 1, 3, 7) == 1.5f);
  key[7] = 9.0f;
  copy.set_key(2, 1, 3, key.data());
  copy.truncate(1);
  CHECK(kv->key(2, 1, 3, 7) == 1.5f);  // the original is untouched
  CHECK(copy.key(2, 1, 3, 7) == 9.0f);
  CHECK(kv->size() == 4);
  CHECK(copy.value(0, 0, 0, 0) == -2.0f);
}

TEST_CASE("kv cache: a range reads and writes back position by position, across key blocks", "[kv_cache]") {
  const ModelConfig c = small_config();
  auto kv = KvCache::create(c, 40);  // 3 key blocks, the last one padded
  REQUIRE(kv.ok());
  std::vector<float> row(8);
  for (int l = 0; l < static_cast<int>(c.n_layer); ++l)
    for (int h = 0; h < static_cast<int>(c.n_head_kv); ++h)
      for (int p = 0; p < 40; ++p) {
        for (int i = 0; i < 8; ++i) row[i] = static_cast<float>(((l * 10 + h) * 100 + p) * 10 + i);
        kv->set_key(l, h, p, row.data());
        for (float& x : row) x = -x;
        kv->set_value(l, h, p, row.data());
      }
  // Positions 13..34 straddle block boundaries (16, 32).
  std::vector<float> range(kv->range_floats(22));
  kv->read_range(13, 22, range.data());
  CHECK(range[0] == kv->key(0, 0, 13, 0));
  CHECK(range[8 * 3 + 5] == kv->key(0, 0, 16, 5));  // keys first: 22 rows of head_dim
  CHECK(range[8 * 22] == kv->value(0, 0, 13, 0));   // then 22 value rows
  // Written back 5 positions later, every key and value moves with it.
  kv->write_range(18, 22, range.data());
  for (int l = 0; l < static_cast<int>(c.n_layer); ++l)
    for (int h = 0; h < static_cast<int>(c.n_head_kv); ++h)
      for (int p = 18; p < 40; ++p)
        for (int i = 0; i < 8; ++i) {
          INFO("layer " << l << " head " << h << " pos " << p << " dim " << i);
          REQUIRE(kv->key(l, h, p, i) == static_cast<float>(((l * 10 + h) * 100 + p - 5) * 10 + i));
          REQUIRE(kv->value(l, h, p, i) == -static_cast<float>(((l * 10 + h) * 100 + p - 5) * 10 + i));
        }
  CHECK(kv->key(0, 0, 17, 0) == 170.0f);  // before the range: untouched
}

TEST_CASE("kv cache: F16 elements, half the memory, rounded on write", "[kv_cache]") {
  auto kv = KvCache::create(small_config(), 100, KvType::F16);
  REQUIRE(kv.ok());
  CHECK(kv->type() == KvType::F16);
  CHECK(kv->bytes() == 3u * 2 * (8 * 112 + 8 * 100) * 2);
  std::vector<float> row = {1.5f, -2.0f, 0.1f, 65504.0f, 1e-8f, -0.0f, 3.14159f, 1000.3f}, got(8);
  kv->set_key(1, 1, 37, row.data());
  kv->set_value(2, 0, 99, row.data());
  for (int i = 0; i < 8; ++i) {
    const float half = f16_to_f32(f32_to_f16(row[i]));  // round to nearest even, as ggml does
    CHECK(kv->key(1, 1, 37, i) == half);
    CHECK(kv->value(2, 0, 99, i) == half);
    CHECK(kv->keys_f16(1, 1)[(37 / 16 * 8 + i) * 16 + 37 % 16] == f32_to_f16(row[i]));
    CHECK(kv->values_f16(2, 0)[99 * 8 + i] == f32_to_f16(row[i]));
  }
  kv->get_value(2, 0, 99, got.data());
  CHECK(got[0] == 1.5f);
  CHECK(got[2] != 0.1f);  // 0.1 is not a half
  CHECK(std::fabs(got[2] - 0.1f) < 1e-4f);
  // A range goes through float and back unchanged.
  std::vector<float> range(kv->range_floats(3));
  kv->read_range(36, 3, range.data());
  auto other = KvCache::create(small_config(), 100, KvType::F16);
  REQUIRE(other.ok());
  other->write_range(36, 3, range.data());
  for (int i = 0; i < 8; ++i) CHECK(other->key(1, 1, 37, i) == kv->key(1, 1, 37, i));
}

TEST_CASE("kv cache: type names", "[kv_cache]") {
  CHECK(*parse_kv_type("f16") == KvType::F16);
  CHECK(*parse_kv_type("f32") == KvType::F32);
  CHECK(std::string(kv_type_name(KvType::F16)) == "f16");
  CHECK(*parse_kv_type("q8_0") == KvType::Q8_0);
  CHECK(std::string(kv_type_name(KvType::Q8_0)) == "q8_0");
  auto bad = parse_kv_type("q4_0");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "unknown KV cache type 'q4_0' (f32, f16 or q8_0)");
}

TEST_CASE("kv cache: Q8_0 keys are llama.cpp's q8_0 blocks, values are halves", "[kv_cache]") {
  ModelConfig c = small_config();
  c.head_dim_k = 64;
  c.head_dim_v = 32;
  auto kv = KvCache::create(c, 40, KvType::Q8_0);
  REQUIRE(kv.ok());
  CHECK(kv->type() == KvType::Q8_0);
  // 40 positions -> 3 key blocks of 16 x (64 quants + 2 float scales); values 40 x 32 halves.
  CHECK(kv->bytes() == 3u * 2 * (3 * 18 * 64 + 40 * 32 * 2));
  CHECK(KvCache::bytes_per_token(c, KvType::Q8_0) == 3.0 * 2 * (18.0 / 16 * 64 + 2 * 32));
  CHECK(KvCache::bytes_per_token(c, KvType::F16) == 3.0 * 2 * 2 * (64 + 32));
  std::vector<float> row(64), got(64);
  for (int i = 0; i < 64; ++i) row[i] = std::sin(0.37f * static_cast<float>(i)) * (i < 32 ? 1.0f : 40.0f);
  row[40] = -90.0f;  // the second block's largest magnitude
  kv->set_key(2, 1, 21, row.data());
  kv->get_key(2, 1, 21, got.data());
  quant::BlockQ8_0 want[2];
  quant::quantize_row_q8_0(row.data(), want, 64);
  for (int i = 0; i < 64; ++i) {
    INFO("dim " << i);
    const float d = f16_to_f32(want[i / 32].d);
    CHECK(got[i] == d * static_cast<float>(want[i / 32].qs[i % 32]));
    CHECK(kv->key(2, 1, 21, i) == got[i]);
    CHECK(std::fabs(got[i] - row[i]) <= d / 2 * 1.0001f);  // within half a step of its block
    // The layout attention reads: quant + 128 at ((i / 4) * 16 + lane) * 4 + i % 4 of the block.
    const uint8_t* blk = kv->keys_q8(2, 1) + 21 / 16 * kv->q8_block_bytes();
    CHECK(blk[((i / 4) * 16 + 21 % 16) * 4 + i % 4] == static_cast<uint8_t>(want[i / 32].qs[i % 32] + 128));
    float scale;
    std::memcpy(&scale, blk + 16 * 64 + ((i / 32) * 16 + 21 % 16) * 4, 4);
    CHECK(scale == d);
  }
  CHECK(kv->key(2, 1, 20, 0) == 0.0f);  // a neighbour in the same block: untouched
  CHECK(kv->key(2, 0, 21, 0) == 0.0f);
  kv->set_value(0, 1, 39, row.data());
  for (int i = 0; i < 32; ++i) CHECK(kv->value(0, 1, 39, i) == f16_to_f32(f32_to_f16(row[i])));
  // Through float and back (a reused chunk is copied that way): the same quants and scales.
  std::vector<float> range(kv->range_floats(2));
  kv->read_range(20, 2, range.data());
  auto other = KvCache::create(c, 40, KvType::Q8_0);
  REQUIRE(other.ok());
  other->write_range(20, 2, range.data());
  for (int i = 0; i < 64; ++i) CHECK(other->key(2, 1, 21, i) == kv->key(2, 1, 21, i));
  const uint8_t* a = kv->keys_q8(2, 1) + kv->q8_block_bytes();  // the block of positions 16..31
  const uint8_t* b = other->keys_q8(2, 1) + kv->q8_block_bytes();
  for (int i = 0; i < 64; ++i) CHECK(a[((i / 4) * 16 + 5) * 4 + i % 4] == b[((i / 4) * 16 + 5) * 4 + i % 4]);
  CHECK(std::memcmp(a + 16 * 64, b + 16 * 64, 2 * 16 * 4) == 0);  // scales (position 20's: zero in both)
  // Head sizes that are not whole blocks of 32 cannot be stored so.
  auto odd = KvCache::create(small_config(), 40, KvType::Q8_0);
  REQUIRE_FALSE(odd.ok());
  CHECK(odd.error().message.find("multiple of 32") != std::string::npos);
}
