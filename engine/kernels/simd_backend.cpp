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
// down on others, and which kind helps differs too (packed_kernels.h; docs/performance.md,
// "Figures behind the engine's code"). So decode-sized steps
// (prefetch_applies) try the four kernels (SimdKernels::matmul, matmul_prefetch,
// matmul_prefetch_near and matmul_prefetch_l2, same results), adding up bytes and time for
// each, and then the fastest one is used. The trial is repeated every kPeriod steps (about
// a thousand decoded tokens of a 1.5B model): a choice made in a noisy spell, or before
// the VM moved to another host, does not stay for the life of a daemon. One choice per
// weight type (a model mixes them): how much prefetch gains differs between types on the
// same machine, so a choice made on one type's steps says little about another's. And one
// for one token (decode) apart from one for a few (a draft's verification): a batch does
// more work per byte, and on a Sapphire Rapids-class VM the kind that kept it streaming
// was not the one-token loop's best.
//
// Each kind runs kRun steps in a row, of which only the second half is timed, and the runs
// take turns in an order where each follows each other kind equally often: how fast a
// matrix streams depends on how it was read the token before (a far prefetch leaves it
// elsewhere in the caches than a near one): timed step by step in turns, a kind that is
// faster when used for every step can time slower than none. After each round of four
// runs a kind slower than kDropBelow of the fastest is dropped (its runs go to the fastest
// so far): on some machines a kind streams at a fraction of the speed of the others, and
// the first tokens of a session are decoded in the trial.
class PrefetchChoice {
 public:
  static constexpr int kKinds = kPrefetchKinds;  // kPrefetchNone, kPrefetchFar, kPrefetchNear, kPrefetchL2
  static constexpr int64_t kWarmup = 16;  // steps of each period before the trial (cold caches)
  static constexpr int64_t kRun = 256;    // steps of one kind in a row
  static constexpr int kRuns = 36;  // ~95 tokens of a 0.5B model: the noise of a shared machine averages out
  static_assert(kKinds == 4 && kRuns % 12 == 0, "kOrder: each kind after each other once in 12 runs");
  static constexpr int64_t kTrialSteps = kRun * kRuns;
  static constexpr int64_t kPeriod = int64_t{1} << 17;
  static constexpr double kDropBelow = 0.75;
  static constexpr int kOrder[12] = {kPrefetchNone, kPrefetchFar,  kPrefetchNear, kPrefetchL2,
                                     kPrefetchNone, kPrefetchNear, kPrefetchFar,  kPrefetchL2,
                                     kPrefetchNear, kPrefetchNone, kPrefetchL2,   kPrefetchFar};

  // The kind for the next step (DecodePrefetch); *timed says whether to time it and
  // record() what it read.
  int next(bool* timed) {
    const int64_t phase = steps_.fetch_add(1, std::memory_order_relaxed) % kPeriod;
    *timed = false;
    if (phase < kWarmup || phase > kWarmup + kTrialSteps) return chosen();
    const int64_t i = phase - kWarmup;
    if (i == kTrialSteps) {  // the trial is over
      decided_.store(leader(), std::memory_order_relaxed);
      return chosen();
    }
    const int64_t run = i / kRun, pos = i % kRun;
    if (pos == 0 && run == 0) reset();
    if (pos == 0 && run > 0 && run % kKinds == 0) drop_slow();
    const int kind = kOrder[run % 12];
    if (dropped_[kind].load(std::memory_order_relaxed)) return leader();
    *timed = pos >= kRun / 2;
    return kind;
  }
  void record(int kind, int64_t bytes, int64_t ns) {
    bytes_[kind].fetch_add(bytes, std::memory_order_relaxed);
    ns_[kind].fetch_add(ns, std::memory_order_relaxed);
  }
  bool started() const { return steps_.load(std::memory_order_relaxed) > 0; }
  // what: e.g. "q8_0 decode" or "q8_0 batch".
  std::string report(std::string_view what) const {
    static constexpr const char* kNames[kKinds] = {"off", "far", "near", "l2"};
    const int d = decided_.load(std::memory_order_relaxed);
    char buf[224];
    // Three significant digits: a slow or emulated CPU times well under 0.1 GB/s.
    std::snprintf(buf, sizeof buf, "%.*s prefetch %s (timed: %.3g GB/s without, %.3g far, %.3g near, %.3g l2)",
                  static_cast<int>(what.size()), what.data(), d < 0 ? "undecided" : kNames[d], rate(0), rate(1),
                  rate(2), rate(3));
    return buf;
  }

 private:
  int chosen() const {
    const int d = decided_.load(std::memory_order_relaxed);
    return d < 0 ? kPrefetchNone : d;
  }
  double rate(int kind) const {  // GB/s
    const auto t = static_cast<double>(ns_[kind].load(std::memory_order_relaxed));
    return t > 0 ? static_cast<double>(bytes_[kind].load(std::memory_order_relaxed)) / t : 0;
  }
  int leader() const {  // the fastest kind not dropped
    int best = -1;
    for (int k = 0; k < kKinds; ++k)
      if (!dropped_[k].load(std::memory_order_relaxed) && (best < 0 || rate(k) > rate(best))) best = k;
    return best < 0 ? kPrefetchNone : best;
  }
  void drop_slow() {
    const double best = rate(leader());
    for (int k = 0; k < kKinds; ++k)
      if (rate(k) < kDropBelow * best) dropped_[k].store(true, std::memory_order_relaxed);
  }
  void reset() {
    for (int k = 0; k < kKinds; ++k) {
      bytes_[k].store(0, std::memory_order_relaxed);
      ns_[k].store(0, std::memory_order_relaxed);
      dropped_[k].store(false, std::memory_order_relaxed);
    }
  }

  std::atomic<int> decided_{-1};
  std::atomic<int64_t> steps_{0};
  std::atomic<int64_t> bytes_[kKinds] = {}, ns_[kKinds] = {};  // this trial's timed steps
  std::atomic<bool> dropped_[kKinds] = {};
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
    int trial = -1;  // the kernel this step times, if any
    if (prefetch_applies(w0.view.type, n)) {
      bool timed = false;
      const int kind = prefetch_[prefetch_slot(w0.view.type, n)].next(&timed);
      trial = timed ? kind : -1;
      fn = kind == kPrefetchFar    ? k_.matmul_prefetch
           : kind == kPrefetchNear ? k_.matmul_prefetch_near
           : kind == kPrefetchL2   ? k_.matmul_prefetch_l2
                                   : k_.matmul;
    }
    const auto start = trial >= 0 ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    pool.run([&](int t) {
      // Decode: the first lines of this thread's slice of every matrix are asked for at
      // once, so the streams of k and v (a few dozen KB each) do not each start with a
      // round trip to memory after the one before ends: small matrices pay that start
      // once per token each.
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
      prefetch_[prefetch_slot(w0.view.type, n)].record(trial, bytes, ns.count());
    }
  }

  // The types with a prefetch twin (prefetch_applies), two choices each: for one token
  // (slot i) and for a batch (slot kPrefetchTypeCount + i); the tried choices, or "decode
  // prefetch undecided" before any decode step.
  static constexpr TensorType kPrefetchTypes[] = {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q5_0,
                                                  TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K};
  static constexpr size_t kPrefetchTypeCount = std::size(kPrefetchTypes);
  static constexpr size_t kPrefetchSlots = 2 * kPrefetchTypeCount;
  static size_t prefetch_slot(TensorType type, int n_tokens) {
    size_t i = kPrefetchTypeCount - 1;  // not kept: prefetch_applies() names only these types
    for (size_t t = 0; t < kPrefetchTypeCount; ++t)
      if (kPrefetchTypes[t] == type) i = t;
    return n_tokens > 1 ? kPrefetchTypeCount + i : i;
  }
  static constexpr int kStartPrefetchBytes = 2048;

  std::string tuning() const override {
    std::string r;
    for (size_t i = 0; i < kPrefetchSlots; ++i) {
      if (!prefetch_[i].started()) continue;
      if (!r.empty()) r += "; ";
      const size_t t = i % kPrefetchTypeCount;
      r += prefetch_[i].report(std::string(tensor_type_name(kPrefetchTypes[t])) +
                               (i < kPrefetchTypeCount ? " decode" : " batch"));
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
