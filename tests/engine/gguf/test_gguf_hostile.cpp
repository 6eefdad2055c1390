// GGUF reader against broken and hostile files: every truncation, absurd counts and
// lengths, overflowing shapes, tensor data out of range or overlapping, bad alignment,
// wrong magic/version. Each must be an error value naming the field — never a crash,
// hang or huge allocation.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "engine/gguf/gguf.h"
#include "engine/gguf/gguf_writer.h"

using namespace wafer;

namespace {

// Hand-assembles GGUF bytes, for files the writer would refuse to make.
struct Bytes {
  std::vector<uint8_t> b;
  Bytes& u32(uint32_t v) { return raw(&v, 4); }
  Bytes& u64(uint64_t v) { return raw(&v, 8); }
  Bytes& str(std::string_view s) {
    u64(s.size());
    return raw(s.data(), s.size());
  }
  Bytes& raw(const void* p, size_t n) {
    b.insert(b.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n);
    return *this;
  }
  Bytes& pad_to(size_t a) {
    b.resize((b.size() + a - 1) / a * a, 0);
    return *this;
  }
  Bytes& header(uint64_t n_tensors, uint64_t n_kv, uint32_t version = 3) {
    return u32(0x46554747).u32(version).u64(n_tensors).u64(n_kv);
  }
};

std::string error_of(const std::vector<uint8_t>& b) {
  auto f = GgufFile::parse(b.data(), b.size());
  REQUIRE_FALSE(f.ok());
  return f.error().message;
}

bool contains(const std::string& s, const std::string& part) {
  if (s.find(part) != std::string::npos) return true;
  UNSCOPED_INFO("message: " << s);
  return false;
}

// A valid file whose last tensor ends exactly at the end of the file (so that every
// truncation cuts something the reader needs).
std::vector<uint8_t> small_valid_file() {
  GgufWriter w;
  w.add_string("general.architecture", "llama");
  w.add_u32("llama.block_count", 1);
  w.add_f32("llama.rope.freq_base", 10000.0f);
  w.add_bool("tokenizer.ggml.add_bos_token", true);
  w.add_string_array("tokenizer.ggml.tokens", std::vector<std::string>{"a", "bc", ""});
  w.add_f32_array("tokenizer.ggml.scores", std::vector<float>{0.f, -1.f, -2.f});
  w.add_tensor("blk.0.attn_q.weight", TensorType::Q8_0, {32, 2}, std::vector<float>(64, 0.5f));
  w.add_tensor("output_norm.weight", TensorType::F32, {8}, std::vector<float>(8, 1.0f));
  auto b = w.to_bytes();
  REQUIRE(b.ok());
  return *b;
}

}  // namespace

TEST_CASE("gguf hostile: a truncation at any byte is an error", "[gguf][hostile]") {
  std::vector<uint8_t> full = small_valid_file();
  REQUIRE(GgufFile::parse(full.data(), full.size()).ok());
  for (size_t n = 0; n < full.size(); ++n) {
    // A fresh allocation of exactly n bytes, so a read past the end would be caught by ASan.
    std::vector<uint8_t> cut(full.begin(), full.begin() + static_cast<long>(n));
    auto f = GgufFile::parse(cut.data(), cut.size());
    INFO("truncated to " << n << " of " << full.size() << " bytes");
    REQUIRE_FALSE(f.ok());
    CHECK(f.error().message.rfind("gguf: ", 0) == 0);
  }
}

TEST_CASE("gguf hostile: every single-byte corruption is handled", "[gguf][hostile]") {
  std::vector<uint8_t> full = small_valid_file();
  int errors = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    for (uint8_t v : {uint8_t{0x00}, uint8_t{0xff}, uint8_t{0x80}, static_cast<uint8_t>(full[i] ^ 1)}) {
      std::vector<uint8_t> b = full;
      b[i] = v;
      auto f = GgufFile::parse(b.data(), b.size());
      if (!f.ok()) {
        ++errors;
        continue;
      }
      // Whatever parsed must be self-consistent: every tensor inside the buffer.
      for (const GgufTensor& t : f->tensors()) {
        REQUIRE(t.data >= b.data() + f->data_offset());
        REQUIRE(t.data + t.n_bytes <= b.data() + b.size());
      }
    }
  }
  CHECK(errors > 0);
}

TEST_CASE("gguf hostile: wrong magic and versions", "[gguf][hostile]") {
  Bytes magic;
  magic.u32(0x46554746).u32(3).u64(0).u64(0);
  CHECK(contains(error_of(magic.b), "bad magic 'FGUF', not a GGUF file (at byte 0)"));
  CHECK(contains(error_of(Bytes().header(0, 0, 1).b), "GGUF version 1 is not supported"));
  CHECK(contains(error_of(Bytes().header(0, 0, 4).b), "unsupported GGUF version 4 (expected 2 or 3)"));
  CHECK(contains(error_of(Bytes().header(0, 0, 0x03000000).b), "big-endian"));
  CHECK(contains(error_of(std::vector<uint8_t>{'G', 'G', 'U', 'F'}), "too small for a GGUF header"));
  // v2 and v3 both parse; an empty file with no tensors is valid.
  for (uint32_t v : {2u, 3u}) {
    auto b = Bytes().header(0, 0, v).b;
    auto f = GgufFile::parse(b.data(), b.size());
    REQUIRE(f.ok());
    CHECK(f->version() == v);
  }
}

TEST_CASE("gguf hostile: absurd counts and lengths fail before allocating", "[gguf][hostile]") {
  CHECK(contains(error_of(Bytes().header(1ull << 63, 0).b), "tensor count 9223372036854775808"));
  CHECK(contains(error_of(Bytes().header(0, 1ull << 63).b), "metadata count 9223372036854775808"));
  CHECK(contains(error_of(Bytes().header(0, ~0ull).u64(0).b), "metadata count"));
  // Key of 2^40 bytes.
  CHECK(contains(error_of(Bytes().header(0, 1).u64(1ull << 40).u32(4).u32(0).b),
                 "metadata entry 0 key: string length 1099511627776 exceeds the 8 bytes left in the file (at byte 24)"));
  // String value of 2^40 bytes, and of ~0 (overflow of length + 8).
  CHECK(contains(error_of(Bytes().header(0, 1).str("k").u32(8).u64(1ull << 40).b),
                 "metadata entry 0 'k': string length 1099511627776"));
  CHECK(contains(error_of(Bytes().header(0, 1).str("k").u32(8).u64(~0ull).u32(0).b), "string length"));
  // Arrays of 2^62 uint32 and 2^61 strings.
  CHECK(contains(error_of(Bytes().header(0, 1).str("a").u32(9).u32(4).u64(1ull << 62).u64(0).b),
                 "'a': array of 4611686018427387904 uint32 exceeds"));
  CHECK(contains(error_of(Bytes().header(0, 1).str("a").u32(9).u32(8).u64(1ull << 61).u64(0).b),
                 "'a': array of 2305843009213693952 strings exceeds"));
  // A string array whose 3rd element is cut.
  CHECK(contains(error_of(Bytes().header(0, 1).str("a").u32(9).u32(8).u64(3).str("x").str("y").u64(100).b),
                 "'a' element 2: string length 100 exceeds"));
}

TEST_CASE("gguf hostile: bad value types", "[gguf][hostile]") {
  CHECK(contains(error_of(Bytes().header(0, 1).str("k").u32(13).u64(0).b), "'k': unknown value type 13"));
  CHECK(contains(error_of(Bytes().header(0, 1).str("k").u32(9).u32(9).u64(1).u32(4).u64(0).b),
                 "'k': nested arrays are not supported"));
  CHECK(contains(error_of(Bytes().header(0, 1).str("k").u32(9).u32(77).u64(0).b), "unknown array element type 77"));
  CHECK(contains(error_of(Bytes().header(0, 2).str("k").u32(4).u32(1).str("k").u32(4).u32(2).b),
                 "metadata entry 1 'k': duplicate key"));
  CHECK(contains(error_of(Bytes().header(0, 1).str("k").u32(10).u32(1).b), "'k' value: needs 8 bytes"));
}

TEST_CASE("gguf hostile: alignment must be a uint32 power of two", "[gguf][hostile]") {
  auto with_alignment = [](uint32_t type, uint64_t value) {
    Bytes b;
    b.header(0, 1).str("general.alignment").u32(type);
    if (type == 4) b.u32(static_cast<uint32_t>(value));
    else b.u64(value);
    return b.b;
  };
  CHECK(contains(error_of(with_alignment(4, 48)), "general.alignment 48 is not a power of two"));
  CHECK(contains(error_of(with_alignment(4, 0)), "general.alignment 0 is not a power of two"));
  CHECK(contains(error_of(with_alignment(10, 64)), "general.alignment is uint64, expected uint32"));
  auto ok = with_alignment(4, 1);
  auto f = GgufFile::parse(ok.data(), ok.size());
  REQUIRE(f.ok());
  CHECK(f->alignment() == 1);
}

TEST_CASE("gguf hostile: tensor infos", "[gguf][hostile]") {
  // One F32 tensor "t" with the given dims, type and offset, followed by `data` bytes.
  auto tensor = [](std::vector<uint64_t> ne, uint32_t type, uint64_t offset, size_t data) {
    Bytes b;
    b.header(1, 0).str("t").u32(static_cast<uint32_t>(ne.size()));
    for (uint64_t d : ne) b.u64(d);
    b.u32(type).u64(offset).pad_to(32);
    b.b.resize(b.b.size() + data, 0);
    return b.b;
  };
  {
    auto b = tensor({4}, 0, 0, 16);
    auto f = GgufFile::parse(b.data(), b.size());
    REQUIRE(f.ok());
    CHECK(f->tensor("t")->n_bytes == 16);
  }
  CHECK(contains(error_of(tensor({1, 1, 1, 1, 1}, 0, 0, 4)), "tensor 0 't': 5 dimensions (at most 4)"));
  CHECK(contains(error_of(tensor({1ull << 62, 1ull << 62}, 0, 0, 0)),
                 "tensor 0 't': dimension 1 = 4611686018427387904 makes the element count overflow"));
  CHECK(contains(error_of(tensor({~0ull}, 0, 0, 0)), "dimension 0 = 18446744073709551615"));
  CHECK(contains(error_of(tensor({1ull << 61}, 0, 0, 0)), "'t': data offset 0 + 9223372036854775808 bytes past end of file"));
  CHECK(contains(error_of(tensor({4}, 0, 32, 16)), "tensor 0 't': data offset 32 + 16 bytes past end of file"));
  CHECK(contains(error_of(tensor({4}, 0, ~0ull & ~31ull, 16)), "bytes past end of file"));
  CHECK(contains(error_of(tensor({4}, 0, 8, 64)), "'t': data offset 8 is not a multiple of the alignment 32"));
  CHECK(contains(error_of(tensor({256}, 16, 0, 1024)), "'t': tensor type 16 is not supported"));
  CHECK(contains(error_of(tensor({256}, 1000, 0, 1024)), "tensor type 1000 is not supported"));
  CHECK(contains(error_of(tensor({33}, 8, 0, 1024)), "'t': row length 33 is not a multiple of the q8_0 block size 32"));
  // Tensor infos cut short.
  CHECK(contains(error_of(Bytes().header(1, 0).str("t").u32(2).u64(4).u32(0).b), "tensor 0 't' dimension 1: needs 8 bytes"));
  CHECK(contains(error_of(Bytes().header(1, 0).str("t").u32(1).u64(4).u32(0).b), "tensor 0 't' data offset: needs 8 bytes"));
  // Infos fine, but the data section would start past the end.
  CHECK(contains(error_of(Bytes().header(1, 0).str("t").u32(1).u64(0).u32(0).u64(0).b),
                 "tensor data section starts at 64, past the end of the file"));
}

TEST_CASE("gguf hostile: overlapping tensors and duplicate names", "[gguf][hostile]") {
  auto two = [](const char* second_name, uint64_t second_offset) {
    Bytes b;
    b.header(2, 0);
    b.str("a").u32(1).u64(16).u32(0).u64(0);
    b.str(second_name).u32(1).u64(16).u32(0).u64(second_offset);
    b.pad_to(32);
    b.b.resize(b.b.size() + 128, 0);
    return b.b;
  };
  auto ok = two("b", 64);
  REQUIRE(GgufFile::parse(ok.data(), ok.size()).ok());
  CHECK(contains(error_of(two("b", 32)), "tensors 'a' (offset 0, 64 bytes) and 'b' (offset 32) overlap"));
  CHECK(contains(error_of(two("b", 0)), "overlap"));
  CHECK(contains(error_of(two("a", 64)), "tensor 1 'a': duplicate tensor name"));
}

TEST_CASE("gguf hostile: names with control bytes are printed safely", "[gguf][hostile]") {
  std::string name("bad\n\x01name", 9);
  auto msg = error_of(Bytes().header(0, 1).str(name).u32(13).b);
  CHECK(msg.find('\n') == std::string::npos);
  CHECK(contains(msg, "'bad??name'"));
}
