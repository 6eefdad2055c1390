// Requantizing weights to Q4_0 or Q5_0 at load (a draft model's weights): which types shrink,
// each value within the new type's rounding of what was stored, the same bytes however the rows are split
// across threads, and a model loaded so: its matrices Q4_0, its embedding rows as stored,
// and its logits those of the same weights written as Q4_0 by the GGUF writer.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "engine/decode/session.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/model/requantize.h"
#include "engine/quant/quant.h"
#include "tests/engine/model_files.h"
#include "tests/support/testing.h"

using namespace wafer;

namespace {

// rows x cols random floats (a few large ones, as real weight rows have) encoded as `type`.
std::vector<uint8_t> random_matrix(TensorType type, int64_t rows, int64_t cols, std::vector<float>& values) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  values.resize(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < values.size(); ++i) values[i] = normal(rng) * (i % 97 == 5 ? 8.0f : 1.0f);
  const size_t rb = *row_bytes(type, static_cast<uint64_t>(cols));
  std::vector<uint8_t> bytes(static_cast<size_t>(rows) * rb);
  for (int64_t r = 0; r < rows; ++r)
    REQUIRE(encode_row(type, values.data() + r * cols, static_cast<uint64_t>(cols), bytes.data() + r * rb));
  return bytes;
}

kernels::MatrixView view(TensorType type, int64_t rows, int64_t cols, const std::vector<uint8_t>& bytes) {
  kernels::MatrixView v;
  v.type = type;
  v.rows = rows;
  v.cols = cols;
  v.row_bytes = *row_bytes(type, static_cast<uint64_t>(cols));
  v.data = bytes.data();
  return v;
}

std::vector<float> dequantized(const kernels::MatrixView& v) {
  std::vector<float> out(static_cast<size_t>(v.rows * v.cols));
  for (int64_t r = 0; r < v.rows; ++r)
    REQUIRE(quant::dequantize_row(v.type, v.data + r * v.row_bytes, out.data() + r * v.cols, v.cols));
  return out;
}

}  // namespace

TEST_CASE("requantize: the types whose rows Q4_0 or Q5_0 makes smaller", "[requantize]") {
  const TensorType q4 = TensorType::Q4_0, q5 = TensorType::Q5_0;
  for (TensorType t : {TensorType::F32, TensorType::F16, TensorType::BF16, TensorType::Q8_0}) {
    CHECK(requantize_shrinks(t, q4, 64));
    CHECK(requantize_shrinks(t, q5, 64));
  }
  CHECK(requantize_shrinks(TensorType::Q5_0, q4, 64));
  CHECK_FALSE(requantize_shrinks(TensorType::Q5_0, q5, 64));  // the same bytes
  CHECK(requantize_shrinks(TensorType::Q6_K, q4, 256));
  CHECK(requantize_shrinks(TensorType::Q6_K, q5, 256));
  CHECK(requantize_shrinks(TensorType::Q5_K, q4, 256));
  CHECK_FALSE(requantize_shrinks(TensorType::Q4_0, q4, 64));  // the same bytes
  CHECK_FALSE(requantize_shrinks(TensorType::Q4_K, q4, 256));  // as small (4.5 bits per weight)
  CHECK_FALSE(requantize_shrinks(TensorType::Q4_K, q5, 256));
  CHECK_FALSE(requantize_shrinks(TensorType::F32, q4, 48));    // not whole blocks
  CHECK_FALSE(requantize_shrinks(TensorType::Q8_1, q4, 64));   // not a weight type wafer reads
  CHECK_FALSE(requantize_shrinks(TensorType::F32, TensorType::Q8_0, 64));  // not a target
}

TEST_CASE("requantize: every value within the new type's rounding, whatever the split across threads",
          "[requantize]") {
  // (target, bytes per 32 weights, levels on each side of 0)
  const struct {
    TensorType to;
    size_t block_bytes;
    float half_levels;
  } targets[] = {{TensorType::Q4_0, 18, 8}, {TensorType::Q5_0, 22, 16}};
  for (const auto& target : targets)
    for (TensorType type : {TensorType::Q8_0, TensorType::F16, TensorType::Q6_K}) {
      INFO(tensor_type_name(type) << " to " << tensor_type_name(target.to));
      const int64_t rows = 37, cols = 512;
      std::vector<float> values;
      const std::vector<uint8_t> bytes = random_matrix(type, rows, cols, values);
      const kernels::MatrixView src = view(type, rows, cols, bytes);
      auto alone = requantize(src, target.to, nullptr);
      REQUIRE(alone.ok());
      CHECK(alone->view.type == target.to);
      CHECK(alone->view.rows == rows);
      CHECK(alone->view.row_bytes == cols / 32 * target.block_bytes);
      CHECK(alone->view.data == alone->owned.get());

      // Each block of 32 as stored, and requantized: scale d = (value of largest magnitude)
      // / -half_levels, quants 0..2 half_levels - 1, so every value is within d / 2 of one
      // of them, but the largest magnitude's opposite end, clamped one level short: within
      // d there.
      const std::vector<float> stored = dequantized(src), q = dequantized(alone->view);
      int off = 0;
      for (size_t b = 0; b < stored.size(); b += 32) {
        float amax = 0;
        for (size_t i = b; i < b + 32; ++i) amax = std::max(amax, std::fabs(stored[i]));
        const float d = amax / target.half_levels;
        for (size_t i = b; i < b + 32; ++i) off += std::fabs(q[i] - stored[i]) > d * 1.01f + 1e-9f;  // d is an f16
      }
      CHECK(off == 0);

      ThreadPool pool(3);
      auto split = requantize(src, target.to, &pool);
      REQUIRE(split.ok());
      CHECK(std::equal(split->view.data, split->view.data + rows * split->view.row_bytes, alone->view.data));
    }
  std::vector<float> values;
  const std::vector<uint8_t> bytes = random_matrix(TensorType::F32, 2, 48, values);
  CHECK_FALSE(requantize(view(TensorType::F32, 2, 48, bytes), TensorType::Q4_0, nullptr).ok());
  const std::vector<uint8_t> whole = random_matrix(TensorType::F32, 2, 64, values);
  CHECK_FALSE(requantize(view(TensorType::F32, 2, 64, whole), TensorType::Q8_0, nullptr).ok());
}

TEST_CASE("requantize: a model loaded with Q4_0 weights", "[requantize][model]") {
  test::TempDir dir;
  test::TestModelSpec spec;
  spec.arch = "qwen2";
  spec.n_embd = 128;
  spec.n_ff = 256;
  spec.n_vocab = 300;
  spec.matrix_type = TensorType::Q8_0;
  spec.embd_type = TensorType::Q8_0;
  spec.tied = true;
  REQUIRE(test::write_test_model(spec, dir / "m.gguf").ok());
  ThreadPool pool(2);
  auto stored = Model::load(dir / "m.gguf", kernels::default_backend(), &pool);
  ModelLoadOptions options;
  options.requantize_to = TensorType::Q4_0;
  auto q4 = Model::load(dir / "m.gguf", kernels::default_backend(), &pool, options);
  REQUIRE(stored.ok());
  REQUIRE(q4.ok());
  CHECK((*stored)->requantized_matrices() == 0);
  CHECK((*q4)->requantized_matrices() == 2 * 7 + 1);  // 7 per layer and the tied output
  for (const LayerWeights& L : (*q4)->layers())
    for (const kernels::PackedMatrix* w : {&L.wq, &L.wk, &L.wv, &L.wo, &L.w_gate, &L.w_up, &L.w_down})
      CHECK(w->view.type == TensorType::Q4_0);
  CHECK((*q4)->output().view.type == TensorType::Q4_0);
  // The embedding rows are read as stored.
  std::vector<float> a(spec.n_embd), b(spec.n_embd);
  (*stored)->embed(77, a.data());
  (*q4)->embed(77, b.data());
  CHECK(a == b);

}

TEST_CASE("requantize: a model requantized at load computes what its Q4_0 file does, bit for bit", "[requantize][model]") {
  // Float matrices requantized at load, and the same floats written as Q4_0 by the GGUF
  // writer (llama-quantize's rounding): the same weights, so the same logits.
  test::TempDir dir;
  test::TestModelSpec spec;
  spec.arch = "qwen2";
  spec.n_embd = 128;
  spec.n_ff = 256;
  spec.matrix_type = TensorType::F32;
  REQUIRE(test::write_test_model(spec, dir / "f32.gguf").ok());
  spec.matrix_type = TensorType::Q4_0;
  REQUIRE(test::write_test_model(spec, dir / "q4_0.gguf").ok());
  ThreadPool pool(2);
  ModelLoadOptions options;
  options.requantize_to = TensorType::Q4_0;
  auto requantized = Model::load(dir / "f32.gguf", kernels::default_backend(), &pool, options);
  auto written = Model::load(dir / "q4_0.gguf", kernels::default_backend(), &pool, options);
  REQUIRE(requantized.ok());
  REQUIRE(written.ok());
  CHECK((*requantized)->requantized_matrices() == 2 * 7 + 1);
  CHECK((*written)->requantized_matrices() == 0);  // already Q4_0

  auto a = Session::create(**requantized, pool, 128, KvType::F32);
  auto b = Session::create(**written, pool, 128, KvType::F32);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  std::vector<int32_t> prompt;
  for (int i = 0; i < 40; ++i) prompt.push_back((i * 37 + 11) % 256);
  REQUIRE(a->eval(prompt, LogitsFor::kAll).ok());
  REQUIRE(b->eval(prompt, LogitsFor::kAll).ok());
  REQUIRE(a->logits().size() == prompt.size() * spec.n_vocab);
  CHECK(a->logits() == b->logits());
}
