// Forward-pass throughput of the current kernels: prefill and decode tokens/s on a model
// file, or on a synthetic model of a given shape written to a temporary file.
//
//   bench_forward [--model FILE | --shape tiny|0.5b] [--threads N] [--prompt N] [--decode N]
//                 [--kernels default|amx|amx-bf16|avx512] [--tokens ID,ID,...] [--logits FILE]
//
// --kernels picks the backend (default: the engine's choice for this CPU); one this CPU
// cannot run exits 77 with a "SKIPPED:" line saying why. --tokens gives the prompt's ids
// (else --prompt N pseudo-random ones). --logits writes the prompt's logits at every
// position (one prefill, F32 KV cache), n_prompt x n_vocab little-endian float32, row by row.
//
// The 0.5b shape is Qwen2.5-Coder-0.5B's (24 layers, 896 wide, 14/2 heads, FFN 4864, vocab
// 151936, tied output) with Q8_0 weights. Prints one line per measurement; the speed issue's
// ISA kernels are compared against the scalar figures printed here.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/compute/forward.h"
#include "engine/kernels/dispatch.h"
#include "engine/kernels/kernels.h"
#include "engine/model/model.h"
#include "tests/support/fixtures/synthetic_model.h"

using namespace wafer;

namespace {

// CPU time of the whole process (all threads), so figures stay meaningful on a busy machine.
double cpu_ms() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

constexpr int kSkipExitCode = 77;

// The backend --kernels names, or nullptr with the exit code: kSkipExitCode after a
// "SKIPPED:" line when this CPU (or its OS) cannot run it, else 2 after an error message.
const kernels::Backend* pick_backend(const std::string& name, int& exit_code) {
  exit_code = 2;
  if (name == "default") return &kernels::default_backend();
  KernelIsa isa;
  const char* isa_name;
  AmxStatus (*state)() = nullptr;
  if (name == "amx") isa = KernelIsa::Amx, isa_name = "AMX", state = amx_state;
  else if (name == "amx-bf16") isa = KernelIsa::AmxBf16, isa_name = "AMX-BF16", state = amx_bf16_state;
  else if (name == "avx512") isa = KernelIsa::Avx512, isa_name = "AVX-512 VNNI";
  else {
    std::fprintf(stderr, "bench_forward: --kernels is default, amx, amx-bf16 or avx512\n");
    return nullptr;
  }
  if (const kernels::Backend* b = kernels::simd_backend(isa)) return b;
  const AmxStatus s = state ? state() : AmxStatus::NotOnCpu;
  if (s == AmxStatus::NotOnCpu) std::printf("SKIPPED: this CPU has no %s\n", isa_name);
  else if (s == AmxStatus::TileStateRefused) std::printf("SKIPPED: the OS refused the AMX tile state\n");
  else {
    std::fprintf(stderr, "bench_forward: %s tiles: %s\n", isa_name, to_string(s));
    return nullptr;
  }
  exit_code = kSkipExitCode;
  return nullptr;
}

std::vector<int32_t> parse_ids(const std::string& list) {
  std::vector<int32_t> ids;
  for (size_t i = 0; i < list.size();) {
    size_t end = list.find(',', i);
    if (end == std::string::npos) end = list.size();
    ids.push_back(static_cast<int32_t>(std::atol(list.substr(i, end - i).c_str())));
    i = end + 1;
  }
  return ids;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_path, shape = "tiny", kernel_name = "default", token_list, logits_path;
  int threads = 2, n_prompt = 32, n_decode = 16;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--model") model_path = v;
    else if (a == "--shape") shape = v;
    else if (a == "--threads") threads = std::atoi(v.c_str());
    else if (a == "--prompt") n_prompt = std::atoi(v.c_str());
    else if (a == "--decode") n_decode = std::atoi(v.c_str());
    else if (a == "--kernels") kernel_name = v;
    else if (a == "--tokens") token_list = v;
    else if (a == "--logits") logits_path = v;
    else {
      std::fprintf(stderr, "bench_forward: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  std::filesystem::path tmp;
  if (model_path.empty()) {
    SyntheticModelSpec spec;
    spec.architecture = "qwen2";
    if (shape == "0.5b") {
      spec.n_embd = 896;
      spec.n_layer = 24;
      spec.n_head = 14;
      spec.n_head_kv = 2;
      spec.n_ff = 4864;
      spec.n_vocab = 151936;
      spec.weight_type = spec.embd_type = TensorType::Q8_0;
      spec.tied_output = true;
    } else if (shape != "tiny") {
      std::fprintf(stderr, "bench_forward: --shape is tiny or 0.5b\n");
      return 2;
    }
    tmp = std::filesystem::temp_directory_path() / ("wafer-bench-" + shape + ".gguf");
    if (Status s = write_synthetic_model(spec, tmp); !s) {
      std::fprintf(stderr, "bench_forward: %s\n", s.error().message.c_str());
      return 1;
    }
    model_path = tmp.string();
  }
  int exit_code = 0;
  const kernels::Backend* backend = pick_backend(kernel_name, exit_code);
  if (!backend) {
    if (!tmp.empty()) std::filesystem::remove(tmp);
    return exit_code;
  }
  std::vector<int32_t> prompt = parse_ids(token_list);
  if (!prompt.empty()) n_prompt = static_cast<int>(prompt.size());
  auto model = Model::load(model_path, *backend);
  if (!model) {
    std::fprintf(stderr, "bench_forward: %s\n", model.error().message.c_str());
    return 1;
  }
  const ModelConfig& c = (*model)->config();
  ThreadPool pool(threads);
  Forward fwd(**model, pool);
  auto kv = KvCache::create(c, n_prompt + n_decode + 1);
  if (!kv) return 1;
  if (prompt.empty())
    for (int i = 0; i < n_prompt; ++i) prompt.push_back(static_cast<int32_t>((i * 7919 + 13) % c.n_vocab));
  std::vector<float> logits;
  double t0 = now_ms(), c0 = cpu_ms();
  if (!fwd.run(prompt, *kv, logits_path.empty() ? LogitsFor::kLast : LogitsFor::kAll, logits).ok()) return 1;
  const double prefill_ms = now_ms() - t0, prefill_cpu = cpu_ms() - c0;
  if (!logits_path.empty()) {
    std::FILE* f = std::fopen(logits_path.c_str(), "wb");
    const bool written = f && std::fwrite(logits.data(), sizeof(float), logits.size(), f) == logits.size();
    if (!f || std::fclose(f) != 0 || !written) {
      std::fprintf(stderr, "bench_forward: cannot write %s\n", logits_path.c_str());
      return 1;
    }
  }
  t0 = now_ms();
  c0 = cpu_ms();
  for (int i = 0; i < n_decode; ++i) {
    const int32_t next = static_cast<int32_t>(i % c.n_vocab);
    if (!fwd.run(std::span<const int32_t>(&next, 1), *kv, LogitsFor::kLast, logits).ok()) return 1;
  }
  const double decode_ms = now_ms() - t0, decode_cpu = cpu_ms() - c0;
  std::printf("backend %s, %d threads, model %s (%u layers, %u wide, vocab %u)\n",
              std::string((*model)->backend().name()).c_str(), threads, model_path.c_str(), c.n_layer, c.n_embd,
              c.n_vocab);
  std::printf("prefill: %d tokens in %.1f ms = %.1f tok/s (CPU %.1f ms = %.1f tokens per CPU-second)\n", n_prompt,
              prefill_ms, 1000.0 * n_prompt / prefill_ms, prefill_cpu, 1000.0 * n_prompt / prefill_cpu);
  std::printf("decode:  %d tokens in %.1f ms = %.2f tok/s (CPU %.1f ms = %.2f tokens per CPU-second)\n", n_decode,
              decode_ms, 1000.0 * n_decode / decode_ms, decode_cpu, 1000.0 * n_decode / decode_cpu);
  if (!tmp.empty()) std::filesystem::remove(tmp);
  return 0;
}
