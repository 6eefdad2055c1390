// Binding a GGUF's tensors to the architecture: good files load (separate or tied output,
// with and without QKV biases); a missing tensor, a wrong shape or an unsupported type is a
// load error that names the tensor.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/model/model.h"
#include "tests/engine/model_files.h"
#include "tests/support/testing.h"

using namespace wafer;

namespace {

// Writes the spec and returns the load error without its "PATH: " prefix ("" when it loads).
std::string load_error(const test::TestModelSpec& spec) {
  test::TempDir dir;
  const auto path = dir / "m.gguf";
  REQUIRE(test::write_test_model(spec, path).ok());
  auto m = Model::load(path);
  if (m.ok()) return "";
  const std::string& msg = m.error().message;
  REQUIRE(msg.rfind(path.string() + ": ", 0) == 0);
  return msg.substr(path.string().size() + 2);
}

}  // namespace

TEST_CASE("model: binds llama and qwen2 files", "[model]") {
  test::TestModelSpec spec;
  test::TempDir dir;
  REQUIRE(test::write_test_model(spec, dir / "llama.gguf").ok());
  auto llama = Model::load(dir / "llama.gguf");
  REQUIRE(llama.ok());
  CHECK((*llama)->layers().size() == 2);
  CHECK((*llama)->layers()[1].bq.empty());
  CHECK((*llama)->output().view.rows == 300);
  CHECK((*llama)->output().view.data != (*llama)->file().tensor("token_embd.weight")->data);

  spec.arch = "qwen2";
  spec.tied = true;
  spec.matrix_type = TensorType::Q8_0;
  REQUIRE(test::write_test_model(spec, dir / "qwen2.gguf").ok());
  auto qwen = Model::load(dir / "qwen2.gguf");
  REQUIRE(qwen.ok());
  CHECK((*qwen)->layers()[0].bk.size() == 32);
  CHECK((*qwen)->layers()[0].wq.view.type == TensorType::Q8_0);
  // Tied: the logits matrix is the embedding matrix.
  CHECK((*qwen)->output().view.data == (*qwen)->file().tensor("token_embd.weight")->data);

  std::vector<float> row(64);
  (*qwen)->embed(299, row.data());
  CHECK(row[0] != 0.0f);
}

namespace {

// The resident kilobytes of the mapping holding `address` (/proc/self/smaps), or -1.
long resident_kb(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto a = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') inside = begin <= a && a < end;
    else if (inside && line.rfind("Rss:", 0) == 0) return std::stol(line.substr(4));
  }
  return -1;
}

}  // namespace

TEST_CASE("model: the file's pages of repacked weights do not stay resident", "[model]") {
  static const int probe = 0;
  if (resident_kb(&probe) < 0) test::skip_test("no /proc/self/smaps on this system");
  test::TestModelSpec spec;
  spec.n_embd = 256;
  spec.n_ff = 1024;
  spec.n_vocab = 2048;
  spec.matrix_type = TensorType::Q8_0;
  spec.embd_type = TensorType::Q8_0;
  test::TempDir dir;
  REQUIRE(test::write_test_model(spec, dir / "m.gguf").ok());
  auto m = Model::load(dir / "m.gguf");
  REQUIRE(m.ok());
  const Model& model = **m;
  if (model.output().data == model.output().view.data) test::skip_test("this backend reads the weights in the file itself");
  const GgufTensor* wd = model.file().tensor("blk.0.ffn_down.weight");
  REQUIRE(wd != nullptr);
  const long file_kb = static_cast<long>(model.file().file_size() / 1024);
  // Every matrix was read while packing; only what was not packed (metadata, norms, the
  // embedding rows, edges of pages shared with them) is still mapped in.
  const long after_load = resident_kb(wd->data);
  INFO("file " << file_kb << " KiB, resident after the load " << after_load << " KiB");
  CHECK(after_load < file_kb / 4);
  // Reading the bytes again maps them back in, the same bytes; release drops them again.
  uint64_t sum = 0;
  for (const GgufTensor& t : model.file().tensors())
    for (uint64_t i = 0; i < t.n_bytes; i += 512) sum += t.data[i];
  CHECK(sum > 0);
  CHECK(resident_kb(wd->data) > file_kb / 2);
  for (const GgufTensor& t : model.file().tensors()) model.file().release(t);
  CHECK(resident_kb(wd->data) < file_kb / 4);
}

TEST_CASE("model: a missing tensor is named", "[model]") {
  test::TestModelSpec spec;
  spec.omit = "blk.1.ffn_up.weight";
  CHECK(load_error(spec) == "model: tensor 'blk.1.ffn_up.weight' is missing");
  spec.omit = "output_norm.weight";
  CHECK(load_error(spec).find("'output_norm.weight' is missing") != std::string::npos);
  spec.arch = "qwen2";
  spec.omit = "blk.0.attn_v.bias";
  CHECK(load_error(spec).find("'blk.0.attn_v.bias' is missing") != std::string::npos);
}

TEST_CASE("model: a wrong shape is named with both shapes", "[model]") {
  test::TestModelSpec spec;
  spec.reshape = "blk.0.attn_k.weight";
  CHECK(load_error(spec) == "model: tensor 'blk.0.attn_k.weight' has shape [64, 33], expected [64, 32]");
  spec.reshape = "blk.1.ffn_norm.weight";
  CHECK(load_error(spec).find("'blk.1.ffn_norm.weight' has shape [64, 2], expected [64]") != std::string::npos);
}

TEST_CASE("model: an unsupported weight type is named", "[model]") {
  test::TestModelSpec spec;
  spec.retype = "blk.0.ffn_down.weight";
  spec.retype_to = TensorType::Q8_1;
  CHECK(load_error(spec) == "model: tensor 'blk.0.ffn_down.weight' has unsupported type q8_1");
  // A K-quant whose rows are not whole 256-element super-blocks cannot even be written, but
  // a legacy type with a row length that is not a multiple of 32 is caught by the writer too;
  // an architecture wafer does not run is refused by name.
  spec = {};
  spec.arch = "starcoder2";
  CHECK(load_error(spec).find("starcoder2") != std::string::npos);
}
