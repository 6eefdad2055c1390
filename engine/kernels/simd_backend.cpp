// The SIMD backend: weights of the packable types (repack.h) are repacked at load into
// 16-row panels in a huge-page weight arena, activations are quantized once per batch
// (SimdKernels::quantize, threads splitting the tokens) and every matmul splits the
// panels into one fixed, contiguous slice per pool thread, so a thread reads the same
// bytes token after token.
// Other weight types (F32/F16/BF16, Q4_1, Q5_1) go through the scalar backend unchanged.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <string>
#include <string_view>

#include "engine/kernels/kernels.h"
#include "engine/quant/quant.h"
#include "engine/quant/quant_repack.h"
#include "engine/kernels/dispatch.h"
#include "engine/runtime/weight_arena.h"

namespace wafer::kernels {

namespace {

constexpr int kPanelLayout = 1;  // PackedMatrix::layout and ActivationFormat::layout

// Software prefetch in the decode kernels speeds them up on some machines and slows them
// down on others (packed_kernels.h: K-quants +35 % on one EPYC VM, -40 % on another; Q4_0
// +12 % on a Sapphire Rapids guest). So decode-sized steps (prefetch_applies) alternate
// the two kernels (SimdKernels::matmul and matmul_prefetch, same results) for kTrialSteps
// steps, adding up bytes and time for each, and then the faster one is used. The trial is
// repeated every kPeriod steps (about a thousand decoded tokens of a 1.5B model): a choice
// made in a noisy spell, or before the VM moved to another host, does not stay for the
// life of a daemon. Alternating step by
// step gives both kernels the same share of the machine's noise. One choice per weight
// type (a model mixes them): on the Sapphire Rapids guest prefetch gains 10-15 % for
// Q4_0 and little for Q8_0, so a choice made on Q8_0 steps was a coin toss for Q4_0.
class PrefetchChoice {
 public:
  static constexpr int64_t kWarmup = 16;        // steps of each period not timed (cold caches)
  static constexpr int64_t kTrialSteps = 1024;  // then timed, half with each kernel
  static constexpr int64_t kPeriod = int64_t{1} << 17;

  // The kernel for the next step (1: with prefetch); *step numbers it, *timed says whether
  // it is part of a trial.
  int next(int64_t* step, bool* timed) {
    *step = steps_.fetch_add(1, std::memory_order_relaxed);
    const int64_t phase = *step % kPeriod;
    *timed = phase >= kWarmup && phase < kWarmup + kTrialSteps;
    const int d = decided_.load(std::memory_order_relaxed);
    return *timed || d < 0 ? static_cast<int>(phase & 1) : d;
  }
  void record(int64_t step, int with, int64_t bytes, int64_t ns) {
    const int64_t window = step / kPeriod % 2, phase = step % kPeriod;
    bytes_[window][with].fetch_add(bytes, std::memory_order_relaxed);
    ns_[window][with].fetch_add(ns, std::memory_order_relaxed);
    if (phase != kWarmup + kTrialSteps - 1) return;
    for (int k = 0; k < 2; ++k) {
      const auto t = static_cast<double>(ns_[window][k].load(std::memory_order_relaxed));
      const auto b = static_cast<double>(bytes_[window][k].load(std::memory_order_relaxed));
      rate_[k].store(t > 0 ? b / t : 0, std::memory_order_relaxed);
      bytes_[1 - window][k].store(0, std::memory_order_relaxed);  // the next trial starts from zero
      ns_[1 - window][k].store(0, std::memory_order_relaxed);
    }
    decided_.store(rate_[1].load(std::memory_order_relaxed) > rate_[0].load(std::memory_order_relaxed) ? 1 : 0,
                   std::memory_order_relaxed);
  }
  bool started() const { return steps_.load(std::memory_order_relaxed) > 0; }
  std::string report(std::string_view type) const {
    const int d = decided_.load(std::memory_order_relaxed);
    char buf[160];
    // Three significant digits: a slow or emulated CPU times well under 0.1 GB/s.
    std::snprintf(buf, sizeof buf, "%.*s decode prefetch %s (timed: %.3g GB/s without, %.3g with)",
                  static_cast<int>(type.size()), type.data(), d < 0 ? "undecided" : d ? "on" : "off",
                  rate_[0].load(std::memory_order_relaxed), rate_[1].load(std::memory_order_relaxed));
    return buf;
  }

 private:
  std::atomic<int> decided_{-1};
  std::atomic<int64_t> steps_{0};
  std::atomic<int64_t> bytes_[2][2] = {{0, 0}, {0, 0}}, ns_[2][2] = {{0, 0}, {0, 0}};  // [window parity][kernel]
  std::atomic<double> rate_[2] = {0.0, 0.0};  // GB/s of the last trial
};

class SimdBackend final : public Backend {
 public:
  explicit SimdBackend(const SimdKernels& k) : k_(k) {}

  std::string_view name() const override { return k_.name; }
  const SimdKernels* simd() const override { return &k_; }

  Result<PackedMatrix> pack(const MatrixView& w, ThreadPool* pool) const override {
    const size_t bytes = packed_bytes(w.type, w.rows, w.cols);
    if (bytes == 0) return scalar_backend().pack(w);
    auto piece = arena_.allocate(bytes);
    if (!piece.ok()) return piece.error();
    bool ok = true;
    if (pool && pool->size() > 1) {
      const int64_t panels = (w.rows + kPanelRows - 1) / kPanelRows;
      std::atomic<bool> all{true};
      pool->run([&](int t) {
        const Slice s = thread_slice(panels, t, pool->size());  // the rows matmul gives thread t
        if (s.begin < s.end && !repack(w.type, w.data, w.rows, w.cols, piece->get(), s.begin, s.end))
          all.store(false, std::memory_order_relaxed);
      });
      ok = all.load();
    } else {
      ok = repack(w.type, w.data, w.rows, w.cols, piece->get());
    }
    if (!ok) return make_error("cannot repack " + std::string(tensor_type_name(w.type)));
    PackedMatrix p;
    p.view = w;
    p.act = ActivationFormat{quant::vec_dot_type(w.type), kPanelLayout};
    p.layout = kPanelLayout;
    p.data = piece->get();
    p.owned = std::move(*piece);
    return p;
  }

  void matmul(const PackedMatrix& w, ActivationSet& x, float* out, int64_t out_stride,
              ThreadPool& pool) const override {
    if (w.layout != kPanelLayout) return scalar_backend().matmul(w, x, out, out_stride, pool);
    const MatmulJob job{&w, out, out_stride};
    matmul_many(std::span<const MatmulJob>(&job, 1), x, pool);
  }

  // The jobs in one parallel step when all are panel matrices reading the same activation
  // format (the same quantized copy); otherwise one by one.
  void matmul_many(std::span<const MatmulJob> jobs, ActivationSet& x, ThreadPool& pool) const override {
    bool together = true;
    for (const MatmulJob& j : jobs)
      together = together && j.w->layout == kPanelLayout && j.w->act == jobs[0].w->act &&
                 j.w->view.type == jobs[0].w->view.type;
    if (!together) {
      for (const MatmulJob& j : jobs) matmul(*j.w, x, j.out, j.stride, pool);
      return;
    }
    const PackedMatrix& w0 = *jobs[0].w;
    const int n = x.rows();
    const int threads = pool.size();
    ActivationSet::Converted& c = x.slot(w0.act);
    if (!c.valid) {
      const size_t need = quantized_acts_bytes(w0.view.type, x.cols(), n);
      if (c.bytes.size() < need) c.bytes.resize(need);  // grows to the high-water mark, then reused
      c.row_bytes = *row_bytes(w0.act.type, static_cast<uint64_t>(x.cols()));
    }
    const QuantizedActs view = acts_view(w0.view.type, n, x.cols(), c.bytes.data());
    const bool convert = !c.valid;
    // One parallel step: tokens quantized by their owners, then (after the barrier
    // inside a second run) each thread's slice of panels of every matrix. Decode (n == 1)
    // quantizes on the calling thread and needs a single run.
    if (convert && n > 1) {
      pool.run([&](int t) {
        const Slice s = thread_slice(n, t, threads);
        k_.quantize(view, x.floats(), x.stride(), static_cast<int>(s.begin), static_cast<int>(s.end));
      });
    } else if (convert) {
      k_.quantize(view, x.floats(), x.stride(), 0, n);
    }
    c.valid = true;
    PackedMatmulFn fn = k_.matmul;
    int64_t step = -1;
    int trial = -1;  // the kernel this step times, if any
    if (prefetch_applies(w0.view.type, n)) {
      bool timed = false;
      const int with = prefetch_[prefetch_slot(w0.view.type)].next(&step, &timed);
      trial = timed ? with : -1;
      fn = with ? k_.matmul_prefetch : k_.matmul;
    }
    const auto start = trial >= 0 ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    pool.run([&](int t) {
      // Decode: the first lines of this thread's slice of every matrix are asked for at
      // once, so the streams of k and v (a few dozen KB each) do not each start with a
      // round trip to memory after the one before ends (q/k/v 0.68-0.75 -> 0.59-0.60 ms
      // per token for the 0.5B Q4_0 model, 0.97-1.03 -> 0.90 for Q8_0, 2 threads).
      if (n == 1)
        for (const MatmulJob& j : jobs) {
          const ::wafer::PackedMatrix pm{j.w->view.type, j.w->view.rows, j.w->view.cols, j.w->data};
          const Slice s = thread_slice(pm.panels(), t, threads);
          if (s.begin < s.end)
            for (int off = 0; off < kStartPrefetchBytes; off += 64) __builtin_prefetch(pm.panel(s.begin) + off, 0, 3);
        }
      for (const MatmulJob& j : jobs) {
        const ::wafer::PackedMatrix pm{j.w->view.type, j.w->view.rows, j.w->view.cols, j.w->data};
        const Slice s = thread_slice(pm.panels(), t, threads);
        if (s.begin < s.end) fn(pm, view, j.out, j.stride, s.begin, s.end);
      }
    });
    if (trial >= 0) {
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
      int64_t bytes = 0;
      for (const MatmulJob& j : jobs)
        bytes += static_cast<int64_t>(packed_bytes(j.w->view.type, j.w->view.rows, j.w->view.cols));
      prefetch_[prefetch_slot(w0.view.type)].record(step, trial, bytes, ns.count());
    }
  }

  // The types with a prefetch twin (prefetch_applies), one choice each; the types' tried
  // choices, or "decode prefetch undecided" before any decode step.
  static constexpr TensorType kPrefetchTypes[] = {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q5_0,
                                                  TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K};
  static constexpr size_t kPrefetchSlots = std::size(kPrefetchTypes);
  static size_t prefetch_slot(TensorType type) {
    for (size_t i = 0; i < kPrefetchSlots; ++i)
      if (kPrefetchTypes[i] == type) return i;
    return kPrefetchSlots - 1;  // not reached: prefetch_applies() names only these
  }
  static constexpr int kStartPrefetchBytes = 2048;

  std::string tuning() const override {
    std::string r;
    for (size_t i = 0; i < kPrefetchSlots; ++i) {
      if (!prefetch_[i].started()) continue;
      if (!r.empty()) r += "; ";
      r += prefetch_[i].report(tensor_type_name(kPrefetchTypes[i]));
    }
    return r.empty() ? "decode prefetch undecided" : r;
  }

 private:
  const SimdKernels& k_;
  mutable WeightArena arena_;
  mutable PrefetchChoice prefetch_[kPrefetchSlots];
};

// One backend per instruction set this CPU runs, created on first use (so AMX is probed
// only when asked for) and kept for the process: packed weights point into its arena.
template <KernelIsa kIsa>
const Backend* backend_for() {
  static const SimdBackend* const b = simd_kernels(kIsa) ? new SimdBackend(*simd_kernels(kIsa)) : nullptr;
  return b;
}

}  // namespace

const Backend* simd_backend(KernelIsa isa) {
  switch (isa) {
    case KernelIsa::Avx2: return backend_for<KernelIsa::Avx2>();
    case KernelIsa::Avx512: return backend_for<KernelIsa::Avx512>();
    case KernelIsa::Avx2Vnni: return backend_for<KernelIsa::Avx2Vnni>();
    case KernelIsa::Avx2VnniEvex: return backend_for<KernelIsa::Avx2VnniEvex>();
    case KernelIsa::Amx: return backend_for<KernelIsa::Amx>();
    case KernelIsa::AmxModel: return backend_for<KernelIsa::AmxModel>();
    case KernelIsa::AmxBf16: return backend_for<KernelIsa::AmxBf16>();
    case KernelIsa::AmxBf16Model: return backend_for<KernelIsa::AmxBf16Model>();
    case KernelIsa::Avx512Model: return backend_for<KernelIsa::Avx512Model>();
    case KernelIsa::Neon: return backend_for<KernelIsa::Neon>();
    case KernelIsa::NeonDotprod: return backend_for<KernelIsa::NeonDotprod>();
  }
  return nullptr;
}

const Backend& default_backend(bool amx, bool amx_bf16) {
  // Chosen once, by the CPU's features: AVX-512 VNNI with AMX tiles (unless amx is false;
  // the BF16 tiles first when amx_bf16 asks for them), else AVX-512 VNNI, else AVX2 with
  // AVX-VNNI, else AVX2; on AArch64 NEON with the dot product, else plain NEON; else scalar.
  static const auto choose = [](bool with_amx, bool with_bf16) -> const Backend& {
    if (with_amx && with_bf16)
      if (const Backend* b = simd_backend(KernelIsa::AmxBf16)) return *b;
    if (with_amx)
      if (const Backend* b = simd_backend(KernelIsa::Amx)) return *b;
    for (KernelIsa isa : {KernelIsa::Avx512, KernelIsa::Avx2Vnni, KernelIsa::Avx2, KernelIsa::NeonDotprod,
                          KernelIsa::Neon})
      if (const Backend* b = simd_backend(isa)) return *b;
    return scalar_backend();
  };
  if (amx && amx_bf16) {
    static const Backend& with_bf16 = choose(true, true);
    return with_bf16;
  }
  if (amx) {
    static const Backend& with = choose(true, false);
    return with;
  }
  static const Backend& without = choose(false, false);  // AMX never touched (not even its check)
  return without;
}

}  // namespace wafer::kernels
