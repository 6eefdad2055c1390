// Model hyper-parameters from GGUF metadata: defaults, validation and the reference models.
#include <catch2/catch.hpp>

#include "engine/gguf/gguf_writer.h"
#include "engine/model/model_config.h"
#include "tests/support/testing.h"

using namespace wafer;

namespace {

GgufWriter base(const std::string& arch) {
  GgufWriter w;
  w.add_string("general.architecture", arch);
  w.add_string("general.name", "unit");
  w.add_u32(arch + ".context_length", 1024);
  w.add_u32(arch + ".embedding_length", 96);
  w.add_u32(arch + ".block_count", 3);
  w.add_u32(arch + ".feed_forward_length", 256);
  w.add_u32(arch + ".attention.head_count", 6);
  return w;
}

Result<ModelConfig> config_of(const GgufWriter& w, std::vector<uint8_t>& keep) {
  auto b = w.to_bytes();
  REQUIRE(b.ok());
  keep = *b;
  auto f = GgufFile::parse(keep.data(), keep.size());
  REQUIRE(f.ok());
  return read_model_config(*f);
}

}  // namespace

TEST_CASE("model config: defaults when optional keys are absent", "[model_config]") {
  GgufWriter w = base("llama");
  w.add_tensor("token_embd.weight", TensorType::F32, {96, 10}, std::vector<float>(960));
  std::vector<uint8_t> keep;
  auto c = config_of(w, keep);
  INFO((c.ok() ? "" : c.error().message));
  REQUIRE(c.ok());
  CHECK(c->arch->name == "llama");
  CHECK(c->arch->rope == RopeLayout::Normal);
  CHECK_FALSE(c->arch->qkv_bias);
  CHECK(c->name == "unit");
  CHECK(c->context_length == 1024);
  CHECK(c->n_embd == 96);
  CHECK(c->n_layer == 3);
  CHECK(c->n_ff == 256);
  CHECK(c->n_head == 6);
  CHECK(c->n_head_kv == 6);
  CHECK(c->head_dim_k == 16);
  CHECK(c->head_dim_v == 16);
  CHECK(c->n_rot == 16);
  CHECK(c->rope_freq_base == 10000.0f);
  CHECK(c->rope_scaling.type == "none");
  CHECK(c->norm_eps == 1e-5f);
  CHECK(c->n_vocab == 10);  // from token_embd rows: no tokenizer metadata
  CHECK(c->tied_output);
}

TEST_CASE("model config: vocabulary size from output.weight when nothing else has it", "[model_config]") {
  GgufWriter w = base("llama");
  w.add_tensor("output.weight", TensorType::F32, {96, 7}, std::vector<float>(96 * 7));
  std::vector<uint8_t> keep;
  auto c = config_of(w, keep);
  REQUIRE(c.ok());
  CHECK(c->n_vocab == 7);
  CHECK_FALSE(c->tied_output);
}

TEST_CASE("model config: explicit keys for qwen2", "[model_config]") {
  GgufWriter w = base("qwen2");
  w.add_u32("qwen2.attention.head_count_kv", 2);
  w.add_u32("qwen2.attention.key_length", 32);
  w.add_u32("qwen2.attention.value_length", 24);
  w.add_f32("qwen2.rope.freq_base", 1e6f);
  w.add_f32("qwen2.attention.layer_norm_rms_epsilon", 1e-6f);
  w.add_string("qwen2.rope.scaling.type", "yarn");
  w.add_f32("qwen2.rope.scaling.factor", 4.0f);
  w.add_u32("qwen2.rope.scaling.original_context_length", 32768);
  w.add_string_array("tokenizer.ggml.tokens", std::vector<std::string>{"a", "b", "c"});
  w.add_tensor("output.weight", TensorType::F32, {96, 3}, std::vector<float>(288));
  std::vector<uint8_t> keep;
  auto c = config_of(w, keep);
  INFO((c.ok() ? "" : c.error().message));
  REQUIRE(c.ok());
  CHECK(c->arch->rope == RopeLayout::NeoX);
  CHECK(c->arch->qkv_bias);
  CHECK(c->n_head_kv == 2);
  CHECK(c->head_dim_k == 32);
  CHECK(c->head_dim_v == 24);
  CHECK(c->n_rot == 32);
  CHECK(c->rope_freq_base == 1e6f);
  CHECK(c->norm_eps == 1e-6f);
  CHECK(c->rope_scaling.type == "yarn");
  CHECK(c->rope_scaling.factor == 4.0f);
  CHECK(c->rope_scaling.original_context == 32768);
  CHECK(c->n_vocab == 3);
  CHECK_FALSE(c->tied_output);
}

TEST_CASE("model config: clear errors for bad or missing metadata", "[model_config]") {
  std::vector<uint8_t> keep;
  {
    GgufWriter w = base("bert");
    auto c = config_of(w, keep);
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().message == "model: unsupported architecture 'bert' (known: llama, qwen2, starcoder2, deepseek2)");
  }
  {
    GgufWriter w;
    w.add_string("general.architecture", "llama");
    w.add_u32("llama.context_length", 10);
    auto c = config_of(w, keep);
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().message == "gguf: missing key 'llama.embedding_length'");
  }
  {
    GgufWriter w = base("llama");
    w.add_u32("llama.attention.head_count_kv", 4);  // 6 % 4 != 0
    auto c = config_of(w, keep);
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().message.find("head_count_kv 4 does not divide head_count 6") != std::string::npos);
  }
  {
    GgufWriter w = base("llama");
    w.add_string("llama.rope.freq_base", "fast");
    auto c = config_of(w, keep);
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().message == "gguf: key 'llama.rope.freq_base' is string, expected a float");
  }
  {
    GgufWriter w = base("llama");  // no vocabulary anywhere
    auto c = config_of(w, keep);
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().message.find("vocabulary size unknown") != std::string::npos);
  }
  {
    GgufWriter w;
    w.add_string("general.architecture", "llama");
    auto c = config_of(w, keep);
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().message == "gguf: missing key 'llama.context_length'");
  }
}

TEST_CASE("model config: architectures are a table", "[model_config]") {
  REQUIRE(find_architecture("starcoder2"));
  CHECK_FALSE(find_architecture("starcoder2")->supported);
  CHECK(find_architecture("starcoder2")->norm == NormKind::LayerNorm);
  CHECK(find_architecture("qwen2")->supported);
  CHECK(find_architecture("gpt2") == nullptr);
  CHECK(known_architectures().size() == 4);
}

TEST_CASE("model config: the reference models match their README", "[model_config][testdata]") {
  auto f = GgufFile::open(test::require_testdata("reference/tiny-qwen2-q8_0.gguf"));
  REQUIRE(f.ok());
  auto c = read_model_config(*f);
  INFO((c.ok() ? "" : c.error().message));
  REQUIRE(c.ok());
  CHECK(c->arch->name == "qwen2");
  CHECK(c->n_embd == 64);
  CHECK(c->n_layer == 2);
  CHECK(c->n_head == 4);
  CHECK(c->n_head_kv == 2);
  CHECK(c->head_dim_k == 16);
  CHECK(c->n_ff == 128);
  CHECK(c->rope_freq_base == 1e6f);
  CHECK(c->norm_eps == 1e-6f);
  CHECK(c->context_length == 32768);
  CHECK(c->n_vocab == 151936);
  CHECK(c->tied_output);

  auto l = GgufFile::open(test::require_testdata("reference/small-llama-q4_k_m.gguf"));
  REQUIRE(l.ok());
  auto lc = read_model_config(*l);
  REQUIRE(lc.ok());
  CHECK(lc->arch->name == "llama");
  CHECK(lc->n_embd == 256);
  CHECK(lc->n_head_kv == 1);
  CHECK(lc->head_dim_k == 64);
  CHECK(lc->n_ff == 768);
  CHECK(lc->n_vocab == 32000);
  CHECK_FALSE(lc->tied_output);
  CHECK(lc->norm_eps == 1e-5f);
  CHECK(parameter_count(*l) > 0);
}

TEST_CASE("model config: the BF16 reference ties its output", "[model_config][testdata]") {
  auto b = GgufFile::open(test::require_testdata("reference/small-llama-bf16.gguf"));
  REQUIRE(b.ok());
  CHECK(read_model_config(*b)->tied_output);
}
