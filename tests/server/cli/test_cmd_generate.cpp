// Drives the real `wafer generate` binary on a generated model: streamed ids, timings on
// stderr, the --logits-json file, and clean failures.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/engine/model_files.h"
#include "tests/support/testing.h"

using namespace wafer;

namespace {

using Run = test::WaferRun;

Run run(const std::string& args) { return test::run_wafer(args); }

std::vector<int> ids_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<int> ids;
  for (int v; in >> v;) ids.push_back(v);
  return ids;
}

}  // namespace

TEST_CASE("wafer generate streams ids and writes logits JSON", "[cli][generate]") {
  test::TempDir dir;
  test::TestModelSpec spec;
  REQUIRE(test::write_test_model(spec, dir / "m.gguf").ok());
  const std::string model = "'" + (dir / "m.gguf").string() + "'";

  Run r = run("generate " + model + " --prompt-ids 1,15,200,42 -n 5 --threads 2");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto ids = ids_of(r.out);
  CHECK(ids.size() == 5);
  for (int id : ids) CHECK((id >= 0 && id < 300));
  CHECK(r.err.find("prompt: 4 tokens") != std::string::npos);
  CHECK(r.err.find("generated: 5 tokens") != std::string::npos);
  CHECK(r.err.find("tok/s") != std::string::npos);

  Run j = run("generate " + model + " --prompt-ids 1,15,200,42 -n 5 --logits-json '" + (dir / "l.json").string() + "'");
  REQUIRE(j.status == 0);
  CHECK(j.out == r.out);  // greedy: the same tokens
  const auto doc = nlohmann::json::parse(test::read_file(dir / "l.json"));
  REQUIRE(doc["positions"].size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    const auto& p = doc["positions"][i];
    CHECK(p["pos"] == i);
    REQUIRE(p["top"].size() == 20);
    CHECK(p["top"][0][0] == p["argmax"]);
    for (size_t k = 1; k < 20; ++k) CHECK(p["top"][k - 1][1].get<double>() >= p["top"][k][1].get<double>());
  }
  CHECK(doc["positions"][3]["argmax"] == ids[0]);  // the first generated token
  CHECK(doc["greedy"].get<std::vector<int>>() == ids);
}

TEST_CASE("wafer generate fails cleanly", "[cli][generate]") {
  test::TempDir dir;
  test::TestModelSpec spec;
  spec.omit = "blk.1.attn_q.weight";
  REQUIRE(test::write_test_model(spec, dir / "bad.gguf").ok());
  Run bad = run("generate '" + (dir / "bad.gguf").string() + "' --prompt-ids 1,2");
  CHECK(bad.status == 1);
  CHECK(bad.err.find("'blk.1.attn_q.weight' is missing") != std::string::npos);

  spec = {};
  spec.context = 4;  // the model's own context caps --context
  REQUIRE(test::write_test_model(spec, dir / "m.gguf").ok());
  Run long_prompt = run("generate '" + (dir / "m.gguf").string() + "' --prompt-ids 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17");
  CHECK(long_prompt.status == 1);
  CHECK(long_prompt.err.find("does not fit the context of 16 tokens") != std::string::npos);

  CHECK(run("generate '" + (dir / "m.gguf").string() + "' --prompt-ids 1,x").status == 1);
  CHECK(run("generate '" + (dir / "m.gguf").string() + "'").status == 2);  // no prompt
  CHECK(run("generate '" + (dir / "nope.gguf").string() + "' --prompt-ids 1").status == 1);
}

TEST_CASE("wafer generate --prompt: tokenized like llama.cpp, same greedy tokens", "[cli][generate][reference]") {
  // The reference prompt `tokenized_code` as text: the prompt's token count, every position's
  // argmax and the 16 greedy tokens must be llama.cpp's (SPM with BOS, and Qwen2 BPE).
  // (Q4_0 is not here: its activations are quantized to 8 bits, which moves near-ties.)
  for (const char* stem : {"tiny-qwen2-q8_0", "tiny-llama-f32"}) {
    INFO(stem);
    const auto json_path = test::require_testdata(std::string("reference/") + stem + ".json");
    const auto ref = nlohmann::json::parse(test::read_file(json_path));
    const auto& p = ref["prompts"][1];
    REQUIRE(p["name"] == "tokenized_code");
    const std::string text = p["text"].get<std::string>();
    REQUIRE(text.find('\'') == std::string::npos);  // safe inside single quotes
    test::TempDir dir;
    const auto model = json_path.parent_path() / (std::string(stem) + ".gguf");
    Run r = run("generate '" + model.string() + "' --prompt '" + text + "' -n 16 --threads 2 --logits-json '" +
                (dir / "l.json").string() + "'");
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.size() > 1);  // text (the greedy tokens of a random model are odd, but text)
    const auto doc = nlohmann::json::parse(test::read_file(dir / "l.json"));
    REQUIRE(doc["positions"].size() == p["tokens"].size());
    for (size_t i = 0; i < doc["positions"].size(); ++i) CHECK(doc["positions"][i]["argmax"] == p["positions"][i]["argmax"]);
    CHECK(doc["greedy"] == p["greedy"]);
  }
}

TEST_CASE("wafer generate --prompt needs a tokenizer", "[cli][generate]") {
  test::TempDir dir;
  REQUIRE(test::write_test_model({}, dir / "m.gguf").ok());  // no tokenizer metadata
  Run r = run("generate '" + (dir / "m.gguf").string() + "' --prompt hello");
  CHECK(r.status == 1);
  CHECK(r.err.find("cannot tokenize --prompt") != std::string::npos);
}
