// bench_engine: end-to-end prefill and decode speed of the engine on synthetic models of
// real shapes (Qwen2.5-Coder 0.5B and 1.5B: random weights, real tensor sizes), written
// by the project's GGUF writer into a temporary directory, against this machine's read
// bandwidth measured in the same run on the same threads.
//
//   bench_engine [--json] [--models 0.5b,1.5b,FILE.gguf] [--weights q8_0,q4_0,q4_k_m] [--threads 1,2]
//                [--repeat N] [--quick] [--tests prefill,decode,deep,deep-prefill,keystroke,verify]
//                [--kv f16|f32|q8_0] [--profile] [--chunk N]
//
// Per model, weights and thread count: prefill of 128 and 512 tokens; decode of 128
// tokens after a 16-token prompt and after 1,500 tokens of context; and (deep-prefill)
// prefill of 64 tokens, one daemon chunk, after 1,450 tokens of context: what a keystroke
// deep in a file costs when the text after the cursor is prefilled again; and (keystroke)
// prefill of 8 tokens after 2,150: what the early prefill of one keystroke computes while
// typing (the typed character, the rest of the cursor's line, the markers) in the daemon's
// prompt of a real file, on the critical path of every suggestion; and (verify, not run
// unless asked for) one forward pass of 1 to 8 tokens after 400 with the logits of every
// row: what verifying a speculative draft of n - 1 tokens costs. The verify passes take
// turns, one pass of each size per round, after passes of 1 and 4 tokens until the kernels'
// prefetch trials for the weights have chosen (kernels/simd_backend.cpp), as they have in a
// daemon after its first suggestions. Decode efficiency =
// (weight bytes read per token x tokens/s) / read bandwidth. --kv: the KV cache's element
// type (default f16, the daemon's default). --chunk: prefill in forward runs of at most N
// tokens (default 512, one run; the daemon prefills in runs of prefill_chunk = 64).
// --models takes shape names or GGUF files (a name ending in .gguf, e.g. the 7B shape
// that `bench_latency --shape 7b --write-model` writes): a file is read as it is, once,
// whatever --weights says, and named by its layer matrices' type. --profile: the time of
// each step of the forward pass (StepProfile), per token for decode and per forward run
// for prefill, after the table line or as a "steps_ms" object in the
// JSON line. With --json one object per line per configuration; otherwise a table. Figures
// are medians over --repeat runs (the machine may be shared: compare with the bandwidth of
// the same run).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/kernels/trials.h"
#include "engine/runtime/cpu_features.h"
#include "engine/compute/forward.h"
#include "engine/compute/kv_cache.h"
#include "engine/runtime/memory_bandwidth.h"
#include "engine/model/model.h"
#include "engine/decode/sampler.h"
#include "tests/support/fixtures/synthetic_model.h"
#include "engine/runtime/threadpool.h"

using namespace wafer;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

struct Shape {
  std::string name;
  uint32_t n_embd, n_layer, n_head, n_head_kv, n_ff;
};

const Shape kShapes[] = {
    {"0.5b", 896, 24, 14, 2, 4864},
    {"1.5b", 1536, 28, 12, 2, 8960},
};

struct Args {
  bool json = false;
  std::vector<std::string> models = {"0.5b"};
  std::vector<std::string> weights = {"q8_0", "q4_0", "q4_k_m"};
  std::vector<int> threads;
  int repeat = 3;
  bool quick = false;
  // deep: decode after 1,500 tokens; deep-prefill: 64 tokens after 1,450
  std::vector<std::string> tests = {"prefill", "decode", "deep", "deep-prefill", "keystroke"};
  KvType kv = KvType::F16;
  bool profile = false;
  int chunk = 512;  // prefill: tokens per forward run (the daemon's prefill_chunk is 64)
  bool amx = true;  // AMX tiles for prefill where the CPU has them (--amx off: AVX-512 VNNI only)
  bool amx_bf16 = false;  // --amx bf16: the BF16 tiles for batches of 32+ tokens (EngineOptions::amx_bf16)
};

bool wants(const Args& a, const char* test) { return std::find(a.tests.begin(), a.tests.end(), test) != a.tests.end(); }

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p <= s.size()) {
    size_t e = s.find(',', p);
    if (e == std::string::npos) e = s.size();
    if (e > p) out.push_back(s.substr(p, e - p));
    p = e + 1;
  }
  return out;
}

bool parse(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (s == "--json")
      a->json = true;
    else if (s == "--models")
      a->models = split(next());
    else if (s == "--weights")
      a->weights = split(next());
    else if (s == "--threads") {
      for (auto& t : split(next())) a->threads.push_back(std::atoi(t.c_str()));
    } else if (s == "--repeat")
      a->repeat = std::max(1, std::atoi(next().c_str()));
    else if (s == "--quick")
      a->quick = true;
    else if (s == "--profile")
      a->profile = true;
    else if (s == "--chunk")
      a->chunk = std::max(1, std::atoi(next().c_str()));
    else if (s == "--tests")
      a->tests = split(next());
    else if (s == "--amx") {
      const std::string v = next();
      if (v != "on" && v != "off" && v != "bf16") {
        std::fprintf(stderr, "--amx: expected on, off or bf16, got '%s'\n", v.c_str());
        return false;
      }
      a->amx = v != "off";
      a->amx_bf16 = v == "bf16";
    }
    else if (s == "--kv") {
      auto t = parse_kv_type(next());
      if (!t) {
        std::fprintf(stderr, "--kv: %s\n", t.error().message.c_str());
        return false;
      }
      a->kv = *t;
    } else {
      std::fprintf(stderr,
                   "usage: bench_engine [--json] [--models 0.5b,1.5b,FILE.gguf] [--weights q8_0,q4_0,q4_k_m] "
                   "[--threads 1,2] [--repeat N] [--quick] [--tests prefill,decode,deep,deep-prefill,keystroke,verify] [--kv f16|f32|q8_0] "
                   "[--profile] [--chunk N] [--amx on|off|bf16]\n");
      return false;
    }
  }
  return true;
}

// The weight mix of a "weights" name: the layer matrices' type, the embedding's, and for
// Q4_K_M-style mixes the per-tensor choice (synthetic_model.h).
bool spec_for(const Shape& shape, const std::string& weights, SyntheticModelSpec* s) {
  s->architecture = "qwen2";
  s->name = "bench-" + shape.name + "-" + weights;
  s->n_embd = shape.n_embd;
  s->n_layer = shape.n_layer;
  s->n_head = shape.n_head;
  s->n_head_kv = shape.n_head_kv;
  s->n_ff = shape.n_ff;
  s->n_vocab = 151936;
  s->context_length = 4096;
  s->tied_output = true;  // Qwen2.5-Coder 0.5B and 1.5B tie the output to the embedding
  if (weights == "q8_0") {
    s->weight_type = s->embd_type = TensorType::Q8_0;
  } else if (weights == "q4_0") {
    s->weight_type = s->embd_type = TensorType::Q4_0;
  } else if (weights == "q4_k_m") {
    s->weight_type = TensorType::Q4_K;
    s->embd_type = TensorType::Q6_K;
    s->k_quant_mix = true;
  } else {
    return false;
  }
  return true;
}

// Bytes of weights a decoded token reads: every layer matrix and the output matrix.
uint64_t weight_bytes_per_token(const Model& m) {
  auto bytes = [](const kernels::PackedMatrix& w) { return static_cast<uint64_t>(w.view.row_bytes) * w.view.rows; };
  uint64_t total = bytes(m.output());
  for (const auto& L : m.layers())
    total += bytes(L.wq) + bytes(L.wk) + bytes(L.wv) + bytes(L.wo) + bytes(L.w_gate) + bytes(L.w_up) + bytes(L.w_down);
  return total;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<int32_t> prompt_tokens(int n, uint32_t n_vocab, int seed) {
  std::vector<int32_t> t(static_cast<size_t>(n));
  uint32_t x = 2463534242u + static_cast<uint32_t>(seed);
  for (auto& v : t) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    v = static_cast<int32_t>(x % std::min<uint32_t>(n_vocab, 50000));
  }
  return t;
}

struct Result1 {
  std::string test;
  int n_tokens, depth;
  double tok_s;
  StepProfile steps;  // with --profile (steps.runs == 0 otherwise)
  double read_gbs = 0, efficiency = 0;  // decode: from the bandwidth measured around each run
};

// Prefill of n tokens into an empty cache in forward runs of at most `chunk` tokens,
// median over repeats; the timed runs' steps are added to `profile` if there is one.
double prefill_tok_s(const Model& m, ThreadPool& pool, int n, int chunk, int repeat, KvType kv_type,
                     StepProfile* profile) {
  Forward fwd(m, pool, chunk);
  auto kv = KvCache::create(m.config(), n, kv_type);
  std::vector<float> logits;
  auto tokens = prompt_tokens(n, m.config().n_vocab, n);
  std::vector<double> r;
  for (int i = 0; i <= repeat; ++i) {
    kv->truncate(0);
    fwd.set_profile(i > 0 ? profile : nullptr);
    auto t0 = Clock::now();
    Status s = fwd.run(tokens, *kv, LogitsFor::kLast, logits);
    double sec = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!s) {
      std::fprintf(stderr, "prefill failed: %s\n", s.error().message.c_str());
      std::exit(1);
    }
    if (i > 0) r.push_back(n / sec);  // the first run warms caches and buffers
  }
  return median(r);
}

// Prefill of n tokens (one forward run) after `depth` tokens of context, median over
// repeats.
double prefill_at_depth_tok_s(const Model& m, ThreadPool& pool, int n, int depth, int repeat, KvType kv_type,
                              StepProfile* profile) {
  Forward fwd(m, pool, 512);
  auto kv = KvCache::create(m.config(), depth + n, kv_type);
  std::vector<float> logits;
  if (!fwd.run(prompt_tokens(depth, m.config().n_vocab, depth), *kv, LogitsFor::kNone, logits)) std::exit(1);
  auto tokens = prompt_tokens(n, m.config().n_vocab, n + depth);
  std::vector<double> r;
  for (int i = 0; i <= repeat; ++i) {
    kv->truncate(depth);
    fwd.set_profile(i > 0 ? profile : nullptr);
    auto t0 = Clock::now();
    if (!fwd.run(tokens, *kv, LogitsFor::kLast, logits)) std::exit(1);
    if (i > 0) r.push_back(n / std::chrono::duration<double>(Clock::now() - t0).count());
  }
  fwd.set_profile(nullptr);
  return median(r);
}

// Verification passes of each of `sizes` tokens after `depth` tokens of context, with the
// logits of every row, into one Result1 per size: first passes of 1 and 4 tokens until the
// backend's prefetch trials for `weights` (the tuning parts that name them) have chosen,
// at most 600; then `repeat` rounds of one pass per size, so that a drift of the machine's
// memory speed touches every size alike.
std::vector<Result1> verify_rows(const Model& m, ThreadPool& pool, const kernels::Backend& backend,
                                 const std::string& weights, const std::vector<int>& sizes, int depth, int repeat,
                                 KvType kv_type, bool profile) {
  const int most = *std::max_element(sizes.begin(), sizes.end());
  Forward fwd(m, pool, 512);
  auto kv = KvCache::create(m.config(), depth + std::max(most, 4), kv_type);
  std::vector<float> logits;
  if (!fwd.run(prompt_tokens(depth, m.config().n_vocab, depth), *kv, LogitsFor::kNone, logits)) std::exit(1);
  const auto pass = [&](int n) {
    kv->truncate(depth);
    const auto tokens = prompt_tokens(n, m.config().n_vocab, n + depth);
    const auto t0 = Clock::now();
    if (!fwd.run(tokens, *kv, LogitsFor::kAll, logits)) std::exit(1);
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  const auto settled = [&] {  // both trials of the weights' type have started and chosen
    return bench::trials_chosen(backend.tuning(), {weights + " decode", weights + " batch"});
  };
  for (int i = 0; i < 600 && !settled(); ++i) pass(i % 2 ? 4 : 1);
  std::vector<Result1> out;
  std::vector<std::vector<double>> rates(sizes.size());
  for (int n : sizes) out.push_back(Result1{"verify", n, depth, 0, {}});
  for (size_t i = 0; i < sizes.size(); ++i) pass(sizes[i]);  // warms buffers of every size
  for (int r = 0; r < repeat; ++r)
    for (size_t i = 0; i < sizes.size(); ++i) {
      fwd.set_profile(profile ? &out[i].steps : nullptr);
      rates[i].push_back(sizes[i] / pass(sizes[i]));
      fwd.set_profile(nullptr);
    }
  for (size_t i = 0; i < sizes.size(); ++i) out[i].tok_s = median(rates[i]);
  return out;
}

// Decode of n tokens (greedy on the logits, one forward each) after `depth` tokens of
// context, into r: the median tok/s, and the median efficiency of the timed runs, each run
// divided by the mean of two read-bandwidth measurements taken just before and just after
// it. (This VM's bandwidth moved by 2x within minutes: one figure per model, minutes away
// from the decode it divides, gave efficiencies from 0.55 to 1.48 for the same code.)
void decode_run(const Model& m, ThreadPool& pool, uint64_t bytes, int n, int depth, int repeat, KvType kv_type,
                StepProfile* profile, Result1* result) {
  const auto bandwidth = [&] {
    BandwidthOptions o;
    o.passes = 3;
    auto bw = measure_read_bandwidth(pool, o);
    return bw.ok() ? bw->read_gbs : 0.0;
  };
  Forward fwd(m, pool, 512);
  auto kv = KvCache::create(m.config(), depth + n + 1, kv_type);
  std::vector<float> logits;
  auto prompt = prompt_tokens(depth, m.config().n_vocab, depth);
  std::vector<double> r, gbs, eff;
  for (int i = 0; i <= repeat; ++i) {
    const bool timed = i > 0 || repeat == 0;
    kv->truncate(0);
    if (!fwd.run(prompt, *kv, LogitsFor::kLast, logits)) std::exit(1);
    int32_t next = greedy_token(logits);
    const double bw_before = timed ? bandwidth() : 0;
    fwd.set_profile(timed ? profile : nullptr);  // the decoded tokens of timed runs only
    auto t0 = Clock::now();
    for (int k = 0; k < n; ++k) {
      int32_t tok[1] = {next};
      if (!fwd.run(tok, *kv, LogitsFor::kLast, logits)) std::exit(1);
      next = greedy_token(logits);  // as the daemon picks a greedy token
    }
    double sec = std::chrono::duration<double>(Clock::now() - t0).count();
    fwd.set_profile(nullptr);
    if (timed) {
      r.push_back(n / sec);
      const double bw = (bw_before + bandwidth()) / 2;
      gbs.push_back(bw);
      if (bw > 0) eff.push_back(static_cast<double>(bytes) * (n / sec) / (bw * 1e9));
    }
    if (repeat == 0) break;
  }
  result->tok_s = median(r);
  result->read_gbs = median(gbs);
  result->efficiency = eff.empty() ? 0 : median(eff);
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parse(argc, argv, &a)) return 2;
  const CpuFeatures& cpu = cpu_features();
  if (a.threads.empty()) {
    a.threads.push_back(1);
    if (cpu.physical_cores > 1) a.threads.push_back(static_cast<int>(cpu.physical_cores));
  }
  const kernels::Backend& backend = kernels::default_backend(a.amx, a.amx_bf16);
  const bool amx_bf16 = backend.simd() && backend.simd()->isa == KernelIsa::AmxBf16;
  const bool amx = amx_bf16 || (backend.simd() && backend.simd()->isa == KernelIsa::Amx);
  const fs::path dir = fs::temp_directory_path() / ("wafer-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  if (!a.json) {
    std::printf("%s", describe(cpu).c_str());
    const std::string bf16 = a.amx_bf16 ? std::string("; BF16 tiles: ") + to_string(amx_bf16_state()) : "";
    std::printf("backend: %s (AMX: %s%s); KV cache %s; figures are medians of %d runs\n\n",
                std::string(backend.name()).c_str(), a.amx ? to_string(amx_state()) : "off (--amx off)", bf16.c_str(),
                kv_type_name(a.kv), a.repeat);
    std::printf("%-5s %-7s %3s %-8s %6s %6s %9s %8s %9s %6s\n", "model", "weights", "thr", "test", "tokens", "depth",
                "tok/s", "MB/tok", "read GB/s", "eff");
  }
  int status = 0;
  for (const auto& model_name : a.models) {
    const bool file = model_name.size() > 5 && model_name.substr(model_name.size() - 5) == ".gguf";
    const Shape* shape = nullptr;
    for (const auto& s : kShapes)
      if (s.name == model_name) shape = &s;
    if (!shape && !file) {
      std::fprintf(stderr, "unknown model shape '%s' (0.5b, 1.5b, or a .gguf file)\n", model_name.c_str());
      return 2;
    }
    const std::string label = file ? fs::path(model_name).stem().string() : shape->name;
    for (const auto& weights : file ? std::vector<std::string>{""} : a.weights) {
      fs::path path = model_name;
      if (!file) {
        SyntheticModelSpec spec;
        if (!spec_for(*shape, weights, &spec)) {
          std::fprintf(stderr, "unknown weights '%s' (q8_0, q4_0, q4_k_m)\n", weights.c_str());
          return 2;
        }
        path = dir / (spec.name + ".gguf");
        if (Status s = write_synthetic_model(spec, path); !s) {
          std::fprintf(stderr, "%s\n", s.error().message.c_str());
          status = 1;
          continue;
        }
      }
      auto model = Model::load(path, backend);
      if (!model.ok()) {
        std::fprintf(stderr, "%s\n", model.error().message.c_str());
        status = 1;
        continue;
      }
      // The layer matrices' type: what the prefetch trials are named by, and a file's name
      // for its weights.
      const std::string type_name(tensor_type_name((*model)->layers().front().w_gate.view.type));
      const std::string weights_name = file ? type_name : weights;
      const uint64_t bytes = weight_bytes_per_token(**model);
      for (int threads : a.threads) {
        ThreadPool pool(threads);
        auto bw = measure_read_bandwidth(pool);
        const double gbs = bw.ok() ? bw->read_gbs : 0;
        std::vector<Result1> results;
        if (wants(a, "prefill"))
          for (int n : {128, 512}) {
            Result1 r{"prefill", n, 0, 0, {}};
            r.tok_s = prefill_tok_s(**model, pool, n, a.chunk, a.repeat, a.kv, a.profile ? &r.steps : nullptr);
            results.push_back(r);
          }
        if (wants(a, "decode")) {
          Result1 r{"decode", 128, 16, 0, {}};
          decode_run(**model, pool, bytes, a.quick ? 32 : 128, 16, a.repeat, a.kv, a.profile ? &r.steps : nullptr, &r);
          results.push_back(r);
        }
        if (!a.quick && wants(a, "deep")) {
          Result1 r{"decode", 128, 1500, 0, {}};
          decode_run(**model, pool, bytes, 128, 1500, std::max(1, a.repeat / 2), a.kv,
                     a.profile ? &r.steps : nullptr, &r);
          results.push_back(r);
        }
        if (!a.quick && wants(a, "deep-prefill")) {
          Result1 r{"prefill", 64, 1450, 0, {}};
          r.tok_s = prefill_at_depth_tok_s(**model, pool, 64, 1450, a.repeat, a.kv, a.profile ? &r.steps : nullptr);
          results.push_back(r);
        }
        if (!a.quick && wants(a, "keystroke")) {
          Result1 r{"prefill", 8, 2150, 0, {}};
          r.tok_s = prefill_at_depth_tok_s(**model, pool, 8, 2150, a.repeat, a.kv, a.profile ? &r.steps : nullptr);
          results.push_back(r);
        }
        if (!a.quick && wants(a, "verify"))
          for (Result1& r : verify_rows(**model, pool, backend, type_name, {1, 2, 3, 4, 5, 6, 7, 8}, 400, a.repeat,
                                        a.kv, a.profile))
            results.push_back(std::move(r));
        for (const auto& r : results) {
          const bool decode = r.test == "decode";
          const double eff = r.efficiency, line_gbs = decode ? r.read_gbs : gbs;
          if (a.json) {
            std::printf(
                "{\"model\":\"%s\",\"weights\":\"%s\",\"kv\":\"%s\",\"threads\":%d,\"amx\":%s,"
                "\"amx_bf16\":%s,\"test\":\"%s\","
                "\"n_tokens\":%d,"
                "\"depth\":%d,\"tok_s\":%.2f,\"weight_bytes_per_token\":%llu,\"read_bw_gbs\":%.2f",
                label.c_str(), weights_name.c_str(), kv_type_name(a.kv), threads, amx ? "true" : "false",
                amx_bf16 ? "true" : "false",
                r.test.c_str(), r.n_tokens,
                r.depth, r.tok_s, static_cast<unsigned long long>(bytes), line_gbs);
            if (decode) std::printf(",\"efficiency\":%.3f", eff);
            else std::printf(",\"chunk\":%d", std::min(a.chunk, r.n_tokens));
            if (r.steps.runs > 0) {
              std::printf(",\"steps_ms\":{");
              for (int s = 0; s < StepProfile::kSteps; ++s)
                std::printf("%s\"%s\":%.4f", s ? "," : "", StepProfile::name(s), r.steps.ms_per_run(s));
              std::printf("}");
            }
            std::printf("}\n");
          } else {
            std::printf("%-5s %-7s %3d %-8s %6d %6d %9.1f %8.1f %9.1f %6s\n", label.c_str(), weights_name.c_str(),
                        threads, r.test.c_str(), r.n_tokens, r.depth, r.tok_s, bytes / 1e6, line_gbs,
                        decode ? std::to_string(eff).substr(0, 4).c_str() : "");
            if (r.steps.runs > 0) {
              std::printf(decode ? "      ms per token:" : "      ms per forward run:");
              for (int s = 0; s < StepProfile::kSteps; ++s)
                std::printf(" %s %.3f", StepProfile::name(s), r.steps.ms_per_run(s));
              std::printf(" (sum %.3f)\n", r.steps.ms_per_run(-1));
            }
          }
          std::fflush(stdout);
        }
      }
      if (!file) fs::remove(path);
    }
  }
  fs::remove_all(dir);
  // What the backend chose by timing itself (the decode prefetch: tried on the first
  // decode steps of the process, then again every 131,072 of them).
  if (const std::string t = backend.tuning(); !t.empty() && !a.json)
    std::printf("\ntuning: %s\n", t.c_str());
  return status;
}
