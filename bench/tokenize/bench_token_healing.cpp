// bench_token_healing: the cost of token healing's allowed set (engine/decode/token_healing.h).
// Builds the index of a vocabulary (once per model load), then answers the question "which
// tokens can regenerate these bytes" for the last prefix token at many cursor positions in
// source code -- by the index and by a full scan of the vocabulary -- and prints the times.
//
//   bench_token_healing [MODEL.gguf ...]   (default: the bundled model, and Qwen2.5's
//                                          151,936-token vocabulary from ../shared/testdata)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/gguf/gguf.h"
#include "engine/decode/token_healing.h"
#include "engine/tokenizer/tokenizer_gguf.h"

using namespace wafer;
using Clock = std::chrono::steady_clock;

namespace {

double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void bench(const std::filesystem::path& path, const std::string& code) {
  auto file = GgufFile::open(path);
  if (!file) {
    std::printf("%s: %s\n", path.c_str(), file.error().message.c_str());
    return;
  }
  auto tok = tokenizer_from_gguf(*file);
  if (!tok) {
    std::printf("%s: %s\n", path.c_str(), tok.error().message.c_str());
    return;
  }
  // Index build: the median of 5.
  std::vector<double> builds;
  size_t indexed = 0;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = Clock::now();
    TokenHealer h(*tok);
    builds.push_back(us_since(t0) / 1000);
    indexed = h.indexed();
  }
  std::sort(builds.begin(), builds.end());
  const TokenHealer healer(*tok);

  // The healed bytes at 2,000 cursor positions: the last token of the code before each.
  std::mt19937 rng(1);
  std::vector<std::string> rests;
  while (rests.size() < 2000) {
    const size_t cursor = 1 + rng() % (code.size() - 1);
    const size_t from = cursor > 200 ? cursor - 200 : 0;
    const std::vector<TokenId> ids = tok->encode(std::string_view(code).substr(from, cursor - from));
    if (ids.empty()) continue;
    const std::string_view b = healable_bytes(*tok, ids.back());
    if (!b.empty()) rests.emplace_back(b);
  }
  std::vector<TokenId> out;
  size_t total = 0;
  double index_max = 0;
  auto t0 = Clock::now();
  for (const std::string& r : rests) {
    const auto q0 = Clock::now();
    healer.allowed(r, out);
    index_max = std::max(index_max, us_since(q0));
    total += out.size();
  }
  const double index_us = us_since(t0) / static_cast<double>(rests.size());
  t0 = Clock::now();
  const size_t scanned = 200;
  for (size_t i = 0; i < scanned; ++i) allowed_by_scan(*tok, rests[i], out);
  const double scan_us = us_since(t0) / static_cast<double>(scanned);
  std::printf("%s: %zu tokens (%zu indexed)\n", path.filename().c_str(), tok->n_vocab(), indexed);
  std::printf("  index build        %8.2f ms (median of 5)\n", builds[builds.size() / 2]);
  std::printf("  allowed, by index  %8.2f us per query (max %.1f us; %zu queries; %.1f tokens allowed on average)\n",
              index_us, index_max, rests.size(), static_cast<double>(total) / static_cast<double>(rests.size()));
  std::printf("  allowed, by scan   %8.2f us per query (%zu queries)\n", scan_us, scanned);
}

}  // namespace

int main(int argc, char** argv) {
  const std::filesystem::path src = std::filesystem::path(WAFER_SOURCE_DIR);
  std::vector<std::filesystem::path> models;
  for (int i = 1; i < argc; ++i) models.emplace_back(argv[i]);
  if (models.empty()) {
    models.push_back(src / "models" / "wafer-tiny-code-q8_0.gguf");
    const auto qwen = src / ".." / "shared" / "testdata" / "reference" / "tiny-qwen2-f16.gguf";
    if (std::filesystem::exists(qwen)) models.push_back(qwen);
  }
  // Source code to cut: the engine's own files.
  std::string code;
  for (const char* f : {"engine/decode/completion_run.cpp", "engine/tokenizer/tokenizer.cpp", "engine/decode/fim_template.cpp"})
    code += read(src / f);
  if (code.size() < 1000) {
    std::fprintf(stderr, "bench_token_healing: no source text found under %s\n", src.c_str());
    return 1;
  }
  for (const auto& m : models) bench(m, code);
  return 0;
}
