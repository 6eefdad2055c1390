// KV cache: sizing from the requested context, room checks with clear errors, truncation,
// and an explicit deep copy.
#include <catch2/catch.hpp>

#include "engine/kv_cache.h"
#include "engine/model_config.h"

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
  CHECK(kv->bytes() == 3u * 2 * (8 + 8) * 100 * sizeof(float));
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
  kv->k(2, 1, 3)[7] = 1.5f;
  kv->v(0, 0, 0)[0] = -2.0f;
  kv->append(4);
  // Positions of one head are contiguous at a stride of head_dim.
  CHECK(kv->k(2, 1, 0)[3 * 8 + 7] == 1.5f);
  CHECK(kv->k(2, 0, 3)[7] == 0.0f);  // another head
  KvCache copy = kv->copy();
  CHECK(copy.size() == 4);
  CHECK(copy.k(2, 1, 3)[7] == 1.5f);
  copy.k(2, 1, 3)[7] = 9.0f;
  copy.truncate(1);
  CHECK(kv->k(2, 1, 3)[7] == 1.5f);  // the original is untouched
  CHECK(kv->size() == 4);
  CHECK(copy.v(0, 0, 0)[0] == -2.0f);
}
