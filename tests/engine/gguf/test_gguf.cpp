// GGUF reader: metadata of every type, typed getters and their errors, tensor infos, and the
// real files of the shared test data.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>

#include "engine/gguf/gguf.h"
#include "engine/gguf/gguf_writer.h"
#include "tests/support/testing.h"

using namespace wafer;

namespace {

std::vector<uint8_t> bytes_of(const GgufWriter& w) {
  auto b = w.to_bytes();
  REQUIRE(b.ok());
  return *b;
}

GgufFile parse_ok(const std::vector<uint8_t>& b) {
  auto f = GgufFile::parse(b.data(), b.size());
  INFO((f.ok() ? "" : f.error().message));
  REQUIRE(f.ok());
  return std::move(f).value();
}

}  // namespace

TEST_CASE("gguf: every metadata type round-trips through the writer", "[gguf]") {
  GgufWriter w;
  w.add_u8("u8", 200);
  w.add_i8("i8", -100);
  w.add_u16("u16", 60000);
  w.add_i16("i16", -30000);
  w.add_u32("u32", 4000000000u);
  w.add_i32("i32", -2000000000);
  w.add_u64("u64", 1ull << 60);
  w.add_i64("i64", -(1ll << 60));
  w.add_f32("f32", 1.5f);
  w.add_f64("f64", 0.1);
  w.add_bool("yes", true);
  w.add_bool("no", false);
  w.add_string("s", "héllo");
  w.add_string("empty", "");
  std::vector<std::string> strs{"a", "", "ÿ\n\0x", "ĠĠ"};
  strs[2] = std::string("\xff\n\0x", 4);
  w.add_string_array("strs", strs);
  std::vector<int32_t> ints{1, -2, 2147483647};
  w.add_i32_array("ints", ints);
  std::vector<float> floats{0.5f, -1e30f, 3.25f};
  w.add_f32_array("floats", floats);
  std::vector<uint8_t> u16s{1, 0, 0xff, 0xff};
  w.add_array("u16s", GgufType::UINT16, 2, u16s);
  auto b = bytes_of(w);
  GgufFile f = parse_ok(b);

  CHECK(f.version() == 3);
  CHECK(f.alignment() == 32);
  CHECK(f.metadata().size() == 18);
  CHECK(*f.get_u32("u8") == 200);
  CHECK(*f.get_i32("i8") == -100);
  CHECK(*f.get_u32("u16") == 60000);
  CHECK(*f.get_i32("i16") == -30000);
  CHECK(*f.get_u32("u32") == 4000000000u);
  CHECK(*f.get_i32("i32") == -2000000000);
  CHECK(*f.get_u64("u64") == (1ull << 60));
  CHECK(*f.get_i64("i64") == -(1ll << 60));
  CHECK(*f.get_f32("f32") == 1.5f);
  CHECK(*f.get_f64("f64") == 0.1);
  CHECK(*f.get_bool("yes"));
  CHECK_FALSE(*f.get_bool("no"));
  CHECK(*f.get_string("s") == "héllo");
  CHECK(f.get_string("empty")->empty());
  auto sa = f.get_string_array("strs");
  REQUIRE(sa.ok());
  REQUIRE(sa->size() == 4);
  for (size_t i = 0; i < 4; ++i) CHECK((*sa)[i] == strs[i]);
  CHECK(*f.get_i32_array("ints") == ints);
  CHECK(*f.get_f32_array("floats") == floats);
  CHECK(*f.get_i32_array("u16s") == std::vector<int32_t>{1, 65535});
  CHECK(*f.get_array_length("strs") == 4);
  CHECK(f.find("u16s")->array.elem_type == GgufType::UINT16);
}

TEST_CASE("gguf: getters report missing keys, type mismatches and range", "[gguf]") {
  GgufWriter w;
  w.add_string("s", "x");
  w.add_i32("neg", -1);
  w.add_u64("big", 1ull << 40);
  w.add_f32_array("fa", std::vector<float>{1.0f});
  std::vector<uint8_t> i8s{0xff, 0x80, 0x7f};
  w.add_array("i8s", GgufType::INT8, 3, i8s);
  std::vector<uint8_t> u32s{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  w.add_array("u32s", GgufType::UINT32, 2, u32s);
  auto bytes = bytes_of(w);  // parse() does not copy: the bytes must outlive f
  GgufFile f = parse_ok(bytes);

  auto m = f.get_u32("nope");
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message == "gguf: missing key 'nope'");
  auto t = f.get_u32("s");
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().message == "gguf: key 's' is string, expected uint32");
  auto r = f.get_u32("neg");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "gguf: key 'neg' value -1 does not fit uint32");
  CHECK(*f.get_i64("neg") == -1);
  CHECK_FALSE(f.get_u32("big").ok());
  CHECK(*f.get_u64("big") == (1ull << 40));
  CHECK_FALSE(f.get_f32("s").ok());
  CHECK_FALSE(f.get_bool("neg").ok());
  CHECK(f.get_string_array("fa").error().message == "gguf: key 'fa' is an array of float32, expected strings");
  CHECK(f.get_i32_array("i8s").value() == std::vector<int32_t>{-1, -128, 127});
  CHECK(f.get_i32_array("u32s").error().message == "gguf: key 'u32s' value 4294967295 does not fit int32 (element 1)");
  CHECK(gguf_read_scalar(GgufType::INT16, reinterpret_cast<const uint8_t*>("\xfe\xff")).i == -2);
  CHECK_FALSE(f.get_i32_array("fa").ok());
  CHECK_FALSE(f.get_f32_array("s").ok());
  CHECK(f.get_f32_array("fa")->at(0) == 1.0f);
}

TEST_CASE("gguf: tensor infos give name, type, shape, size and data", "[gguf]") {
  GgufWriter w;
  w.set_alignment(64);
  std::vector<float> a(6);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
  w.add_tensor("a", TensorType::F32, {3, 2}, a);
  std::vector<uint8_t> raw(34 * 4, 7);
  w.add_tensor_raw("blk.0.attn_q.weight", TensorType::Q8_0, {64, 2}, raw);
  w.add_tensor("scalar", TensorType::F32, {1}, std::vector<float>{42.0f});
  auto b = bytes_of(w);
  GgufFile f = parse_ok(b);
  CHECK(f.alignment() == 64);
  CHECK(*f.get_u32("general.alignment") == 64);
  CHECK(f.data_offset() % 64 == 0);
  REQUIRE(f.tensors().size() == 3);
  const GgufTensor* t = f.tensor("a");
  REQUIRE(t);
  CHECK(t->type == TensorType::F32);
  CHECK(t->n_dims == 2);
  CHECK(t->ne == std::array<uint64_t, 4>{3, 2, 1, 1});
  CHECK(t->n_elements == 6);
  CHECK(t->rows() == 2);
  CHECK(t->n_bytes == 24);
  CHECK(std::memcmp(t->data, a.data(), 24) == 0);
  const GgufTensor* q = f.tensor("blk.0.attn_q.weight");
  REQUIRE(q);
  CHECK(q->type == TensorType::Q8_0);
  CHECK(q->n_bytes == 136);
  CHECK(q->offset == 64);  // 24 bytes of "a" padded to 64
  CHECK(std::memcmp(q->data, raw.data(), raw.size()) == 0);
  CHECK(static_cast<size_t>(q->data - b.data()) == f.data_offset() + 64);
  CHECK(f.tensor("missing") == nullptr);
  float s;
  std::memcpy(&s, f.tensor("scalar")->data, 4);
  CHECK(s == 42.0f);
}

TEST_CASE("gguf: open maps a file and reports unreadable paths", "[gguf]") {
  test::TempDir dir;
  GgufWriter w;
  w.add_string("general.architecture", "llama");
  w.add_tensor("t", TensorType::F16, {4}, std::vector<float>{1, 2, 3, 4});
  REQUIRE(w.write(dir / "m.gguf").ok());
  auto f = GgufFile::open(dir / "m.gguf");
  REQUIRE(f.ok());
  CHECK(*f->get_string("general.architecture") == "llama");
  CHECK(f->file_size() == std::filesystem::file_size(dir / "m.gguf"));
  GgufFile moved = std::move(f).value();  // views stay valid across a move
  CHECK(moved.tensor("t")->n_bytes == 8);
  CHECK(*moved.get_string("general.architecture") == "llama");

  auto missing = GgufFile::open(dir / "nope.gguf");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == (dir / "nope.gguf").string() + ": No such file or directory");
  auto directory = GgufFile::open(dir.path());
  REQUIRE_FALSE(directory.ok());
  CHECK(directory.error().message.find("not a regular file") != std::string::npos);
  test::write_file(dir / "empty.gguf", "");
  auto empty = GgufFile::open(dir / "empty.gguf");
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().message.find("too small for a GGUF header") != std::string::npos);
}

TEST_CASE("gguf: the shared reference models read with their known facts", "[gguf][testdata]") {
  auto path = test::require_testdata("reference/tiny-qwen2-f16.gguf");
  auto f = GgufFile::open(path);
  INFO((f.ok() ? "" : f.error().message));
  REQUIRE(f.ok());
  CHECK(*f->get_string("general.architecture") == "qwen2");
  CHECK(f->file_size() == 25674912);
  CHECK(*f->get_u32("qwen2.embedding_length") == 64);
  CHECK(*f->get_u32("qwen2.block_count") == 2);
  CHECK(*f->get_u32("qwen2.context_length") == 32768);
  CHECK(*f->get_string("tokenizer.ggml.model") == "gpt2");
  CHECK(*f->get_string("tokenizer.ggml.pre") == "qwen2");
  auto tokens = f->get_string_array("tokenizer.ggml.tokens");
  REQUIRE(tokens.ok());
  CHECK(tokens->size() == 151936);
  CHECK((*tokens)[151643] == "<|endoftext|>");
  CHECK(f->get_string_array("tokenizer.ggml.merges")->size() == 151387);
  auto types = f->get_i32_array("tokenizer.ggml.token_type");
  REQUIRE(types.ok());
  CHECK(types->size() == 151936);
  CHECK((*types)[151700] == 5);  // [PAD...] fillers are UNUSED
  CHECK(*f->get_u32("tokenizer.ggml.bos_token_id") == 151643);
  const GgufTensor* embd = f->tensor("token_embd.weight");
  REQUIRE(embd);
  CHECK(embd->type == TensorType::F16);
  CHECK(embd->ne[0] == 64);
  CHECK(embd->ne[1] == 151936);
  CHECK(f->tensor("output.weight") == nullptr);  // tied
  CHECK(f->tensor("blk.1.attn_q.bias")->type == TensorType::F32);

  auto q8 = GgufFile::open(test::require_testdata("reference/tiny-llama-q4_0.gguf"));
  REQUIRE(q8.ok());
  CHECK(q8->tensor("blk.0.attn_q.weight")->type == TensorType::Q4_0);
  CHECK(q8->tensor("output.weight")->type == TensorType::Q8_0);
  CHECK(q8->tensor("blk.0.attn_norm.weight")->type == TensorType::F32);
}

TEST_CASE("gguf: every real GGUF in the shared test data parses", "[gguf][testdata]") {
  auto dir = test::require_testdata("reference");
  int n = 0;
  for (const char* sub : {"reference", "tokenizer"}) {
    for (const auto& e : std::filesystem::directory_iterator(test::testdata_dir() / sub)) {
      if (e.path().extension() != ".gguf") continue;
      auto f = GgufFile::open(e.path());
      INFO(e.path().string() << ": " << (f.ok() ? "" : f.error().message));
      REQUIRE(f.ok());
      CHECK(f->has("general.architecture"));
      CHECK(f->get_string_array("tokenizer.ggml.tokens").ok());
      for (const GgufTensor& t : f->tensors()) CHECK(t.data + t.n_bytes <= t.data - t.offset - f->data_offset() + f->file_size());
      ++n;
    }
  }
  CHECK(n >= 18);  // tests/data's 12 vocabularies and 3 models, the 3 regenerated ones (more with ../shared/testdata)
  auto spm = GgufFile::open(test::testdata_dir() / "tokenizer/ggml-vocab-llama-spm.gguf");
  REQUIRE(spm.ok());
  CHECK(*spm->get_string("tokenizer.ggml.model") == "llama");
  CHECK(spm->get_string_array("tokenizer.ggml.tokens")->size() == 32000);
  CHECK(spm->get_f32_array("tokenizer.ggml.scores")->size() == 32000);
  CHECK(spm->tensors().empty());
  auto sc = GgufFile::open(test::testdata_dir() / "tokenizer/ggml-vocab-starcoder.gguf");
  REQUIRE(sc.ok());
  CHECK(*sc->get_string("general.architecture") == "starcoder2");
  CHECK(*sc->get_string("tokenizer.ggml.pre") == "starcoder");
  CHECK(sc->get_string_array("tokenizer.ggml.tokens")->size() == 49152);
}
