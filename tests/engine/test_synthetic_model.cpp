// Synthetic llama/qwen2 models: llama.cpp tensor names and shapes, the tiny vocabulary,
// deterministic weights, and quantized files that hold exactly the quantized F32 weights.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "engine/gguf.h"
#include "engine/model_config.h"
#include "engine/quantize_basic.h"
#include "engine/synthetic_model.h"
#include "tests/support/testing.h"

using namespace wafer;

TEST_CASE("synthetic model: llama shapes, names and hyper-parameters", "[synthetic]") {
  test::TempDir dir;
  SyntheticModelSpec spec;
  spec.n_layer = 3;
  REQUIRE(write_synthetic_model(spec, dir / "m.gguf").ok());
  auto f = GgufFile::open(dir / "m.gguf");
  REQUIRE(f.ok());
  auto c = read_model_config(*f);
  REQUIRE(c.ok());
  CHECK(c->arch->name == "llama");
  CHECK(c->n_layer == 3);
  CHECK(c->n_embd == 64);
  CHECK(c->n_head_kv == 2);
  CHECK(c->head_dim_k == 16);
  CHECK_FALSE(c->tied_output);
  auto vocab = synthetic_vocab(0);
  REQUIRE(vocab.ok());
  CHECK(c->n_vocab == vocab->tokens.size());
  CHECK(f->tensors().size() == 1 + 3 * 9 + 2);
  CHECK(f->tensor("token_embd.weight")->ne[1] == c->n_vocab);
  CHECK(f->tensor("blk.2.attn_q.weight")->ne == std::array<uint64_t, 4>{64, 64, 1, 1});
  CHECK(f->tensor("blk.2.attn_k.weight")->ne == std::array<uint64_t, 4>{64, 32, 1, 1});
  CHECK(f->tensor("blk.0.attn_output.weight")->ne[0] == 64);
  CHECK(f->tensor("blk.0.ffn_down.weight")->ne == std::array<uint64_t, 4>{128, 64, 1, 1});
  CHECK(f->tensor("blk.0.ffn_gate.weight")->ne == std::array<uint64_t, 4>{64, 128, 1, 1});
  CHECK(f->tensor("blk.0.attn_q.bias") == nullptr);
  CHECK(f->tensor("output.weight")->ne[1] == c->n_vocab);

  // Norm weights are near 1, matrices near 0 with the requested spread.
  const GgufTensor* norm = f->tensor("blk.1.ffn_norm.weight");
  const float* nw = reinterpret_cast<const float*>(norm->data);
  double mean = 0;
  for (int i = 0; i < 64; ++i) mean += nw[i] / 64.0;
  CHECK(std::fabs(mean - 1.0) < 0.1);
  const GgufTensor* q = f->tensor("blk.0.attn_q.weight");
  const float* qw = reinterpret_cast<const float*>(q->data);
  double sq = 0;
  for (uint64_t i = 0; i < q->n_elements; ++i) sq += double(qw[i]) * qw[i];
  CHECK(std::sqrt(sq / q->n_elements) == Approx(0.15).epsilon(0.1));
}

TEST_CASE("synthetic model: tokenizer metadata with FIM tokens", "[synthetic]") {
  test::TempDir dir;
  SyntheticModelSpec spec;
  spec.architecture = "qwen2";
  spec.n_vocab = 400;
  spec.tied_output = true;
  REQUIRE(write_synthetic_model(spec, dir / "q.gguf").ok());
  auto f = GgufFile::open(dir / "q.gguf");
  REQUIRE(f.ok());
  auto tokens = f->get_string_array("tokenizer.ggml.tokens");
  REQUIRE(tokens.ok());
  REQUIRE(tokens->size() == 400);
  CHECK((*tokens)[32] == "Ġ");
  CHECK((*tokens)[10] == "Ċ");
  CHECK((*tokens)[65] == "A");
  CHECK((*tokens)[0] == "Ā");
  CHECK((*tokens)[255] == "ÿ");
  CHECK((*tokens)[399] == "[PAD399]");
  auto pre = f->get_u32("tokenizer.ggml.fim_pre_token_id");
  REQUIRE(pre.ok());
  CHECK((*tokens)[*pre] == "<|fim_prefix|>");
  CHECK((*tokens)[*f->get_u32("tokenizer.ggml.fim_mid_token_id")] == "<|fim_middle|>");
  CHECK((*tokens)[*f->get_u32("tokenizer.ggml.fim_suf_token_id")] == "<|fim_suffix|>");
  CHECK((*tokens)[*f->get_u32("tokenizer.ggml.eos_token_id")] == "<|endoftext|>");
  auto types = f->get_i32_array("tokenizer.ggml.token_type");
  CHECK((*types)[*pre] == 3);
  CHECK((*types)[100] == 1);
  CHECK((*types)[399] == 5);
  // Every merge joins two existing tokens into an existing token.
  auto merges = f->get_string_array("tokenizer.ggml.merges");
  REQUIRE(merges.ok());
  CHECK(merges->size() == 12);
  for (std::string_view m : *merges) {
    size_t sp = m.find(' ');
    REQUIRE(sp != std::string_view::npos);
    std::string joined = std::string(m.substr(0, sp)) + std::string(m.substr(sp + 1));
    CHECK(std::find(tokens->begin(), tokens->end(), joined) != tokens->end());
  }
  auto c = read_model_config(*f);
  REQUIRE(c.ok());
  CHECK(c->tied_output);
  CHECK(f->tensor("output.weight") == nullptr);
  CHECK(f->tensor("blk.1.attn_k.bias")->ne[0] == 32);
  CHECK(f->tensor("blk.1.attn_q.bias")->ne[0] == 64);

  spec.fim_metadata = false;
  REQUIRE(write_synthetic_model(spec, dir / "nofim.gguf").ok());
  auto g = GgufFile::open(dir / "nofim.gguf");
  REQUIRE(g.ok());
  CHECK_FALSE(g->has("tokenizer.ggml.fim_pre_token_id"));
}

TEST_CASE("synthetic model: deterministic, seeded, and quantized from the same floats", "[synthetic]") {
  test::TempDir dir;
  SyntheticModelSpec spec;
  spec.n_layer = 1;
  spec.n_head = 2;
  spec.n_head_kv = 1;
  spec.head_dim = 48;  // q_dim 96 != n_embd
  REQUIRE(write_synthetic_model(spec, dir / "a.gguf").ok());
  REQUIRE(write_synthetic_model(spec, dir / "b.gguf").ok());
  CHECK(test::read_file(dir / "a.gguf") == test::read_file(dir / "b.gguf"));
  spec.seed = 2;
  REQUIRE(write_synthetic_model(spec, dir / "c.gguf").ok());
  CHECK(test::read_file(dir / "a.gguf") != test::read_file(dir / "c.gguf"));
  spec.seed = 1;
  spec.weight_type = spec.embd_type = spec.output_type = TensorType::Q8_0;
  REQUIRE(write_synthetic_model(spec, dir / "q.gguf").ok());

  auto a = GgufFile::open(dir / "a.gguf");
  auto q = GgufFile::open(dir / "q.gguf");
  REQUIRE(a.ok());
  REQUIRE(q.ok());
  auto c = read_model_config(*q);
  REQUIRE(c.ok());
  CHECK(c->head_dim_k == 48);
  CHECK(q->tensor("blk.0.attn_q.weight")->ne[1] == 96);
  CHECK(q->tensor("blk.0.attn_output.weight")->ne[0] == 96);
  for (const char* name : {"token_embd.weight", "blk.0.attn_v.weight", "blk.0.ffn_down.weight", "output.weight"}) {
    const GgufTensor* ft = a->tensor(name);
    const GgufTensor* qt = q->tensor(name);
    REQUIRE(qt->type == TensorType::Q8_0);
    std::vector<uint8_t> expect(qt->n_bytes);
    quantize_row_q8_0(reinterpret_cast<const float*>(ft->data), expect.data(), ft->n_elements);
    INFO(name);
    CHECK(std::memcmp(expect.data(), qt->data, expect.size()) == 0);
  }
  CHECK(q->tensor("blk.0.attn_norm.weight")->type == TensorType::F32);
}

TEST_CASE("synthetic model: inconsistent specs are errors", "[synthetic]") {
  test::TempDir dir;
  SyntheticModelSpec spec;
  spec.architecture = "gpt2";
  CHECK_FALSE(write_synthetic_model(spec, dir / "x.gguf").ok());
  spec = {};
  spec.n_head_kv = 3;
  CHECK_FALSE(write_synthetic_model(spec, dir / "x.gguf").ok());
  spec = {};
  spec.n_vocab = 10;
  auto s = write_synthetic_model(spec, dir / "x.gguf");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("smaller than the base vocabulary") != std::string::npos);
  spec = {};
  spec.weight_type = TensorType::Q4_0;
  spec.n_embd = 48;  // rows of 48 do not fit 32-element blocks
  spec.n_head = 3;
  spec.n_head_kv = 1;
  CHECK_FALSE(write_synthetic_model(spec, dir / "x.gguf").ok());
}

TEST_CASE("synthetic model: Q4_K_M-style mix with fallbacks for short rows", "[synthetic]") {
  test::TempDir dir;
  SyntheticModelSpec spec;
  spec.n_embd = 256;  // rows of 256: K-quants fit
  spec.n_ff = 96;     // ffn_down rows of 96: they fall back
  spec.n_head = 4;
  spec.n_layer = 8;
  spec.weight_type = TensorType::Q4_K;
  spec.embd_type = TensorType::Q6_K;
  spec.k_quant_mix = true;
  REQUIRE(write_synthetic_model(spec, dir / "m.gguf").ok());
  auto f = GgufFile::open(dir / "m.gguf");
  REQUIRE(f.ok());
  CHECK(f->tensor("token_embd.weight")->type == TensorType::Q6_K);
  CHECK(f->tensor("blk.0.attn_q.weight")->type == TensorType::Q4_K);
  CHECK(f->tensor("blk.0.attn_v.weight")->type == TensorType::Q6_K);  // first eighth: more bits
  CHECK(f->tensor("blk.1.attn_v.weight")->type == TensorType::Q4_K);
  CHECK(f->tensor("blk.3.attn_v.weight")->type == TensorType::Q6_K);  // every third from n/8
  CHECK(f->tensor("blk.7.attn_v.weight")->type == TensorType::Q6_K);  // last eighth
  CHECK(f->tensor("blk.0.ffn_down.weight")->type == TensorType::Q8_0);  // Q6_K, rows of 96
  CHECK(f->tensor("blk.1.ffn_down.weight")->type == TensorType::Q5_0);  // Q4_K, rows of 96
}
