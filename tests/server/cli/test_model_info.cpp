// `wafer info`'s report: groups, types, parameter count, tokenizer and FIM, text and JSON.
#include <catch2/catch.hpp>

#include "engine/gguf/gguf.h"
#include "tests/support/fixtures/synthetic_model.h"
#include "server/cli/model_info.h"
#include "tests/support/testing.h"

using namespace wafer;

TEST_CASE("model info: a synthetic qwen2 model is described completely", "[model_info]") {
  test::TempDir dir;
  SyntheticModelSpec spec;
  spec.architecture = "qwen2";
  spec.weight_type = TensorType::Q8_0;
  spec.embd_type = TensorType::F16;
  spec.n_vocab = 320;
  REQUIRE(write_synthetic_model(spec, dir / "m.gguf").ok());
  auto f = GgufFile::open(dir / "m.gguf");
  REQUIRE(f.ok());
  ModelReport m = describe_model(*f, "m.gguf");
  REQUIRE(m.config);
  CHECK(m.architecture == "qwen2");
  CHECK(m.gguf_version == 3);
  CHECK(m.tensor_count == 1 + 2 * 12 + 2);
  // Parameters: embd + output 2 * 64 * 320, per layer 4 * 64*64 (q, o; k, v are 32 wide:
  // 2 * 64*64 + 2 * 64*32) + 3 * 64*128 + 2 norms + biases 64 + 32 + 32; output_norm 64.
  uint64_t per_layer = 2 * 64 * 64 + 2 * 64 * 32 + 3 * 64 * 128 + 2 * 64 + 64 + 32 + 32;
  CHECK(m.parameters == 2 * 64 * 320 + 2 * per_layer + 64);
  REQUIRE(m.groups.size() == 4);
  CHECK(m.groups[0].name == "embeddings");
  CHECK(m.groups[0].bytes == 64 * 320 * 2);
  CHECK(m.groups[0].types.at("f16") == 1);
  CHECK(m.groups[1].name == "attention");
  CHECK(m.groups[1].tensors == 2 * 8);
  CHECK(m.groups[1].types.at("q8_0") == 8);
  CHECK(m.groups[1].types.at("f32") == 8);  // norms and biases
  CHECK(m.groups[2].name == "ffn");
  CHECK(m.groups[2].bytes == 2 * (3 * 64 * 128 / 32 * 34 + 64 * 4));
  CHECK(m.groups[3].name == "output");
  CHECK(m.groups[3].tensors == 2);
  CHECK(m.types.at("q8_0").tensors == 2 * 7);
  CHECK(m.tokenizer_model == "gpt2");
  CHECK(m.tokenizer_pre == "qwen2");
  CHECK(m.n_tokens == 320);
  REQUIRE(m.fim.tokens.size() == 6);
  CHECK(m.fim.tokens[0].role == "prefix");
  CHECK(m.fim.tokens[0].text == "<|fim_prefix|>");
  CHECK(m.fim.source == "metadata");

  std::string text = info_text(m);
  CHECK(text.find("architecture  qwen2\n") != std::string::npos);
  CHECK(text.find("heads         4 (kv heads 2, head dim 16)\n") != std::string::npos);
  CHECK(text.find("vocab         320\n") != std::string::npos);
  CHECK(text.find("fim           prefix ") != std::string::npos);

  nlohmann::json j = info_json(m);
  CHECK(j["hparams"]["n_layer"] == 2);
  CHECK(j["hparams"]["rope_layout"] == "neox");
  CHECK(j["types"]["q8_0"]["tensors"] == 14);
  CHECK(j["groups"]["embeddings"]["bytes"] == 64 * 320 * 2);
  CHECK(j["parameters"] == m.parameters);
  CHECK(j["fim"]["tokens"].size() == 6);
}

TEST_CASE("model info: a vocabulary-only file of an unknown architecture", "[model_info][testdata]") {
  auto path = test::require_testdata("tokenizer/ggml-vocab-bert-bge.gguf");
  auto f = GgufFile::open(path);
  REQUIRE(f.ok());
  ModelReport m = describe_model(*f, path.string());
  CHECK_FALSE(m.config);
  CHECK(m.config_error.find("unsupported architecture 'bert'") != std::string::npos);
  CHECK(m.tensor_count == 0);
  CHECK(m.groups.empty());
  CHECK(m.n_tokens == 30522);
  CHECK(m.fim.tokens.empty());
  CHECK(info_text(m).find("fim           no FIM tokens found") != std::string::npos);
  CHECK(info_json(m)["hparams"].is_null());
}
