// GGUF writer: tensor bytes of every float-convertible type read back exactly, alignment
// padding, and errors for shapes that cannot be written.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "engine/quant/float16.h"
#include "engine/gguf/gguf.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/quant/quant_basic.h"
#include "tests/support/testing.h"

using namespace wafer;

TEST_CASE("gguf writer: tensors of every type read back byte for byte", "[gguf_writer]") {
  const uint64_t cols = 64, rows = 3;
  std::vector<float> x(cols * rows);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 17) * 0.37f - 2.9f;
  for (uint32_t alignment : {32u, 1u, 256u}) {
    GgufWriter w;
    w.set_alignment(alignment);
    w.add_string("general.architecture", "llama");
    for (TensorType t : {TensorType::F32, TensorType::F16, TensorType::BF16, TensorType::Q8_0, TensorType::Q4_0})
      w.add_tensor(std::string(tensor_type_name(t)), t, {cols, rows}, x);
    // A generated tensor: row r holds r everywhere.
    w.add_tensor("gen", TensorType::F32, {cols, rows}, [&](uint64_t r, float* out) {
      for (uint64_t i = 0; i < cols; ++i) out[i] = static_cast<float>(r);
    });
    auto bytes = w.to_bytes();
    REQUIRE(bytes.ok());
    auto f = GgufFile::parse(bytes->data(), bytes->size());
    INFO("alignment " << alignment << ": " << (f.ok() ? "" : f.error().message));
    REQUIRE(f.ok());
    CHECK(f->alignment() == alignment);
    for (const GgufTensor& t : f->tensors()) CHECK(t.offset % alignment == 0);

    const GgufTensor* f32 = f->tensor("f32");
    REQUIRE(f32);
    CHECK(std::memcmp(f32->data, x.data(), x.size() * 4) == 0);

    std::vector<uint16_t> h(x.size());
    f32_to_f16_row(x.data(), h.data(), x.size());
    REQUIRE(f->tensor("f16")->n_bytes == h.size() * 2);
    CHECK(std::memcmp(f->tensor("f16")->data, h.data(), h.size() * 2) == 0);
    f32_to_bf16_row(x.data(), h.data(), x.size());
    CHECK(std::memcmp(f->tensor("bf16")->data, h.data(), h.size() * 2) == 0);

    std::vector<uint8_t> q(rows * 2 * kQ8_0BlockBytes);
    quantize_row_q8_0(x.data(), q.data(), x.size());
    REQUIRE(f->tensor("q8_0")->n_bytes == q.size());
    CHECK(std::memcmp(f->tensor("q8_0")->data, q.data(), q.size()) == 0);
    q.resize(rows * 2 * kQ4_0BlockBytes);
    quantize_row_q4_0(x.data(), q.data(), x.size());
    REQUIRE(f->tensor("q4_0")->n_bytes == q.size());
    CHECK(std::memcmp(f->tensor("q4_0")->data, q.data(), q.size()) == 0);

    float g;
    std::memcpy(&g, f->tensor("gen")->data + (2 * cols + 5) * 4, 4);
    CHECK(g == 2.0f);
  }
}

TEST_CASE("gguf writer: write() and to_bytes() produce the same file", "[gguf_writer]") {
  test::TempDir dir;
  GgufWriter w;
  w.add_u32("k", 1);
  w.add_tensor("t", TensorType::Q8_0, {32}, std::vector<float>(32, 1.0f));
  REQUIRE(w.write(dir / "a.gguf").ok());
  auto b = w.to_bytes();
  REQUIRE(b.ok());
  CHECK(test::read_file(dir / "a.gguf") == std::string(b->begin(), b->end()));
  CHECK(b->size() % 32 == 0);
  auto bad = w.write(dir / "no/such/dir/a.gguf");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("cannot create") != std::string::npos);
}

TEST_CASE("gguf writer: impossible tensors are errors", "[gguf_writer]") {
  auto err = [](GgufWriter& w) {
    auto b = w.to_bytes();
    REQUIRE_FALSE(b.ok());
    return b.error().message;
  };
  {
    GgufWriter w;
    w.add_tensor("t", TensorType::Q8_0, {33}, std::vector<float>(33));
    CHECK(err(w) == "gguf writer: tensor 't': row length 33 does not fit type q8_0");
  }
  {
    GgufWriter w;
    w.add_tensor("t", TensorType::F32, {4, 2}, std::vector<float>(7));
    CHECK(err(w) == "gguf writer: tensor 't': 7 floats, shape needs 8");
  }
  {
    GgufWriter w;
    w.add_tensor("t", TensorType::Q5_K, {256}, std::vector<float>(256));
    CHECK(err(w) == "gguf writer: tensor 't': cannot convert float to q5_K");
  }
  {
    GgufWriter w;
    w.add_tensor_raw("t", TensorType::Q4_K, {256}, std::vector<uint8_t>(143));
    CHECK(err(w) == "gguf writer: tensor 't': 143 raw bytes, shape needs 144");
  }
  {
    GgufWriter w;
    w.add_tensor("t", TensorType::F32, {1, 1, 1, 1, 1}, std::vector<float>(1));
    CHECK(err(w) == "gguf writer: tensor 't': needs 1 to 4 dimensions");
  }
  {
    GgufWriter w;
    w.set_alignment(48);
    CHECK(err(w) == "gguf writer: alignment 48 is not a power of two");
  }
}
