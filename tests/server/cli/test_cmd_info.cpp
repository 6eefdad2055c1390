// Drives the real `wafer info` binary on generated, truncated and missing model files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "engine/kernels/kernels.h"
#include "tests/support/fixtures/synthetic_model.h"
#include "tests/support/testing.h"

using namespace wafer;

TEST_CASE("wafer info describes a generated model, as text and JSON", "[cli][info]") {
  test::TempDir dir;
  SyntheticModelSpec spec;
  spec.weight_type = TensorType::Q4_0;
  spec.n_layer = 3;
  REQUIRE(write_synthetic_model(spec, dir / "m.gguf").ok());
  auto r = test::run_wafer("info '" + (dir / "m.gguf").string() + "'");
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("architecture  llama\n") != std::string::npos);
  CHECK(r.out.find("layers        3\n") != std::string::npos);
  CHECK(r.out.find("q4_0 x21") != std::string::npos);

  auto j = test::run_wafer("info --json '" + (dir / "m.gguf").string() + "'");
  REQUIRE(j.status == 0);
  auto doc = nlohmann::json::parse(j.out);
  CHECK(doc["architecture"] == "llama");
  CHECK(doc["hparams"]["n_layer"] == 3);
  CHECK(doc["file_size"] == std::filesystem::file_size(dir / "m.gguf"));
  CHECK(doc["types"]["q4_0"]["tensors"] == 21);
}

TEST_CASE("wafer info: unreadable or broken files are one line on stderr and exit 1", "[cli][info]") {
  test::TempDir dir;
  REQUIRE(write_synthetic_model(SyntheticModelSpec{}, dir / "m.gguf").ok());
  std::string full = test::read_file(dir / "m.gguf");
  test::write_file(dir / "cut.gguf", full.substr(0, full.size() / 2));
  auto cut = test::run_wafer("info '" + (dir / "cut.gguf").string() + "'");
  CHECK(cut.status == 1);
  CHECK(cut.out.empty());
  CHECK(cut.err.rfind("wafer info: " + (dir / "cut.gguf").string() + ": gguf: ", 0) == 0);
  CHECK(cut.err.find("past end of file") != std::string::npos);
  CHECK(std::count(cut.err.begin(), cut.err.end(), '\n') == 1);

  auto missing = test::run_wafer("info '" + (dir / "none.gguf").string() + "'");
  CHECK(missing.status == 1);
  CHECK(missing.err == "wafer info: " + (dir / "none.gguf").string() + ": No such file or directory\n");

  test::write_file(dir / "text.gguf", "hello, this is not a model at all");
  auto text = test::run_wafer("info '" + (dir / "text.gguf").string() + "'");
  CHECK(text.status == 1);
  CHECK(text.err.find("bad magic 'hell', not a GGUF file") != std::string::npos);

  auto two = test::run_wafer("info a.gguf b.gguf");
  CHECK(two.status == 2);
  CHECK(two.err.find("expected at most one MODEL.gguf") != std::string::npos);
}

TEST_CASE("wafer info without a model describes the one the daemon would serve, and why", "[cli][info]") {
  test::TempDir dir;  // an empty pull cache: the bundled model (the source tree's, for a build tree)
  const char* old = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old ? old : "";
  setenv("XDG_CACHE_HOME", dir.path().c_str(), 1);
  auto bundled = test::run_wafer("info");
  auto json = test::run_wafer("info --json");
  std::filesystem::create_directories(dir / "wafer" / "models");
  REQUIRE(write_synthetic_model(SyntheticModelSpec{}, dir / "wafer" / "models" / "qwen2.5-coder-0.5b-q8_0.gguf").ok());
  auto pulled = test::run_wafer("info");
  if (old) setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  else unsetenv("XDG_CACHE_HOME");
  INFO(bundled.err);
  CHECK(bundled.status == 0);
  CHECK(bundled.out.find("wafer-tiny-code-q8_0.gguf") != std::string::npos);
  CHECK(bundled.out.find("source        bundled; for much better suggestions run: wafer pull qwen2.5-coder-1.5b --with-draft\n") !=
        std::string::npos);
  CHECK(json.status == 0);
  CHECK(nlohmann::json::parse(json.out)["source"] == "bundled");
  CHECK(pulled.status == 0);
  CHECK(pulled.out.find("qwen2.5-coder-0.5b-q8_0.gguf") != std::string::npos);
  CHECK(pulled.out.find("source        cache\n") != std::string::npos);
}

TEST_CASE("wafer info NAME reads a model `wafer pull NAME` stored in the cache", "[cli][info][pull]") {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "wafer" / "models");
  REQUIRE(write_synthetic_model(SyntheticModelSpec{}, dir / "wafer" / "models" / "qwen2.5-coder-0.5b-q8_0.gguf").ok());
  const char* old = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old ? old : "";
  setenv("XDG_CACHE_HOME", dir.path().c_str(), 1);
  auto pulled = test::run_wafer("info qwen2.5-coder-0.5b");
  auto not_pulled = test::run_wafer("info qwen2.5-coder-1.5b");
  if (old) setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  else unsetenv("XDG_CACHE_HOME");
  CHECK(pulled.status == 0);
  CHECK(pulled.out.find("architecture  llama\n") != std::string::npos);
  CHECK(not_pulled.status == 1);
  CHECK(not_pulled.err.find("run: wafer pull qwen2.5-coder-1.5b") != std::string::npos);
}

TEST_CASE("wafer info --residency: weights and KV cache read per token, and the ceilings", "[cli][info]") {
  test::TempDir dir;
  SyntheticModelSpec spec;  // 2 layers, 2 KV heads of 16 dimensions: no q8_0 keys
  spec.weight_type = TensorType::Q8_0;
  REQUIRE(write_synthetic_model(spec, dir / "m.gguf").ok());
  spec.head_dim = 32;
  REQUIRE(write_synthetic_model(spec, dir / "m32.gguf").ok());

  auto t = test::run_wafer("info --residency --threads 1 '" + (dir / "m.gguf").string() + "'");
  REQUIRE(t.status == 0);
  CHECK(t.out.find("residency:\n  weights read per decoded token: ") != std::string::npos);
  CHECK(t.out.find(" per thread, 1 threads)") != std::string::npos);
  CHECK(t.out.find("  kernels: " + std::string(kernels::default_backend().name()) +
                   " (chosen by the CPU's features; AMX: " + to_string(amx_state()) + "; attention on tiles: " +
                   to_string(attend_tiles_state()) + "); caches: ") != std::string::npos);
  CHECK(t.out.find("KV cache per token of context: f16 0.2 KiB, q8_0 not possible (key head size), f32 0.5 KiB") !=
        std::string::npos);

  for (const char* name : {"m.gguf", "m32.gguf"}) {
    INFO(name);
    auto j = test::run_wafer("info --residency --json '" + (dir / name).string() + "'");
    REQUIRE(j.status == 0);
    const auto r = nlohmann::json::parse(j.out)["residency"];
    const bool wide = std::string(name) == "m32.gguf";
    const int dim = wide ? 32 : 16;
    // 2 layers x 2 KV heads x (keys + values), bytes per element.
    CHECK(r["kv_bytes_per_token"]["f16"].get<double>() == 2 * 2 * 2.0 * (dim + dim));
    CHECK(r["kv_bytes_per_token"]["f32"].get<double>() == 2 * 2 * 4.0 * (dim + dim));
    CHECK(r["kv_bytes_per_token"]["q8_0"].get<double>() == (wide ? 2 * 2 * (18.0 / 16 * 32 + 2.0 * 32) : 0.0));
    const double bw = r["read_bw_gbs"].get<double>(), weights = r["weight_bytes_per_token"].get<double>();
    REQUIRE(bw > 0);
    CHECK(weights > 0);
    CHECK(r["decode_ceiling_tok_s"].get<double>() == Approx(bw * 1e9 / weights));
    CHECK(r["depth"] == 1500);
    CHECK(r["kernels"] == std::string(kernels::default_backend().name()));
    CHECK(r["amx"] == std::string(to_string(amx_state())));
    CHECK(r["attention_tiles"] == std::string(to_string(attend_tiles_state())));
    CHECK(r["decode_ceiling_at_depth_tok_s"].get<double>() ==
          Approx(bw * 1e9 / (weights + 1500 * r["kv_bytes_per_token"]["f16"].get<double>())));
  }
}
