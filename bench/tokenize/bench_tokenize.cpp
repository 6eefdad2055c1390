// Tokenization throughput on source code, one core: MB/s of encode() for byte-level BPE
// (Qwen2) and SentencePiece (llama-spm), median of several runs. "cold" runs use a fresh
// tokenizer (empty word cache), "warm" runs repeat on the same tokenizer, which is what
// re-tokenizing an editor buffer on every keystroke looks like.
//
// usage: bench_tokenize [--runs N] [--mb N] [MODEL.gguf ...]
//   default models: ../shared/testdata/reference/tiny-qwen2-f16.gguf and
//   ../shared/testdata/tokenizer/ggml-vocab-llama-spm.gguf; corpus: the Python standard
//   library (/usr/lib/python3.11/*.py, sorted) concatenated up to N MB (default 4).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/gguf/gguf.h"
#include "engine/tokenizer/tokenizer_gguf.h"

namespace fs = std::filesystem;
using namespace wafer;

namespace {

std::string corpus(size_t max_bytes) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::directory_iterator("/usr/lib/python3.11", ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".py") files.push_back(it->path());
  std::sort(files.begin(), files.end());
  std::string text;
  for (const fs::path& p : files) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    text += ss.str();
    if (text.size() >= max_bytes) break;
  }
  if (text.size() > max_bytes) text.resize(max_bytes);
  return text;
}

// CPU time of this thread: on a shared machine it is closer to what one free core does
// than wall time (the wall-clock figure is printed too).
double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Result<Tokenizer> load(const std::string& path) {
  Result<GgufFile> f = GgufFile::open(path);
  if (!f) return f.error();
  return tokenizer_from_gguf(*f);
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  double mb = 4;
  std::vector<std::string> models;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--mb" && i + 1 < argc) mb = std::atof(argv[++i]);
    else models.push_back(a);
  }
  if (models.empty()) {
    fs::path data = fs::path(WAFER_SOURCE_DIR) / ".." / "shared" / "testdata";
    models = {(data / "reference/tiny-qwen2-f16.gguf").string(), (data / "tokenizer/ggml-vocab-llama-spm.gguf").string()};
  }
  const std::string text = corpus(size_t(mb * 1e6));
  if (text.empty()) {
    std::fprintf(stderr, "bench_tokenize: no corpus (/usr/lib/python3.11/*.py)\n");
    return 1;
  }
  std::printf("corpus: Python stdlib, %.2f MB; %d runs each, median\n", text.size() / 1e6, runs);
  for (const std::string& path : models) {
    Result<Tokenizer> warm = load(path);
    if (!warm) {
      std::fprintf(stderr, "bench_tokenize: %s: %s\n", path.c_str(), warm.error().message.c_str());
      return 1;
    }
    std::vector<double> cold_cpu, warm_cpu, cold_wall, warm_wall;
    size_t n_tokens = 0;
    const double mbytes = text.size() / 1e6;
    auto timed = [&](const Tokenizer& t, std::vector<double>& cpu, std::vector<double>& wall) {
      auto w0 = std::chrono::steady_clock::now();
      double c0 = thread_seconds();
      std::vector<TokenId> ids = t.encode(text);
      cpu.push_back(mbytes / (thread_seconds() - c0));
      wall.push_back(mbytes / std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
      n_tokens = ids.size();
    };
    for (int r = 0; r < runs; ++r) {
      Result<Tokenizer> fresh = load(path);
      timed(*fresh, cold_cpu, cold_wall);
      timed(*warm, warm_cpu, warm_wall);
    }
    std::printf("%s: %s\n  %zu tokens (%.2f bytes/token)\n", fs::path(path).filename().string().c_str(),
                describe_tokenizer(*warm).c_str(), n_tokens, double(text.size()) / double(n_tokens));
    std::printf("  cold (fresh word cache): %6.1f MB/s cpu time, %6.1f MB/s wall\n", median(cold_cpu), median(cold_wall));
    std::printf("  warm (repeat):           %6.1f MB/s cpu time, %6.1f MB/s wall\n", median(warm_cpu), median(warm_wall));
  }
  return 0;
}
