// Where a forward pass spends its wall time, step by step (bench_engine --profile). A
// Forward with a profile attached (Forward::set_profile) adds the time of each step of
// every run to it; without one it reads no clock.
#pragma once

#include <chrono>
#include <cstdint>

namespace wafer {

struct StepProfile {
  enum Step { kOther, kQkv, kRopeKv, kAttention, kWo, kGateUp, kSwiglu, kDown, kOutput, kSteps };
  // "other" is the norms, embeddings, biases and residual adds.
  static const char* name(int step) {
    static const char* const kNames[kSteps] = {"other", "qkv", "rope+kv", "attention", "wo",
                                               "gate+up", "swiglu", "down", "output"};
    return step >= 0 && step < kSteps ? kNames[step] : "?";
  }
  double seconds[kSteps] = {};
  int64_t runs = 0;  // forward runs (chunks) timed
  // Milliseconds per timed run of one step, or of all of them (step < 0).
  double ms_per_run(int step) const { return (step < 0 ? total() : seconds[step]) * 1e3 / static_cast<double>(runs); }
  double total() const {
    double s = 0;
    for (double x : seconds) s += x;
    return s;
  }
};

// Laps of one run: lap(step) charges the time since the previous lap (or construction) to
// `step`. A null profile makes every lap a no-op.
class StepClock {
 public:
  explicit StepClock(StepProfile* p) : p_(p) {
    if (p_) {
      ++p_->runs;
      t_ = std::chrono::steady_clock::now();
    }
  }
  void lap(StepProfile::Step step) {
    if (!p_) return;
    const auto now = std::chrono::steady_clock::now();
    p_->seconds[step] += std::chrono::duration<double>(now - t_).count();
    t_ = now;
  }

 private:
  StepProfile* p_;
  std::chrono::steady_clock::time_point t_;
};

}  // namespace wafer
