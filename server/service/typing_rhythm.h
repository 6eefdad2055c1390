// The user's typing rhythm in one document: when the last keystroke came and the last few
// gaps between keystrokes. A suggestion is seen only if it comes before the next
// keystroke, so an automatic request's first-token budget follows the rhythm: while the
// user types, the budget is a share of the typical gap (typing_budget_ms), and the suffix
// the engine re-prefills after every keystroke is cut to fit it (engine/decode/latency_budget.h).
#pragma once

#include <algorithm>
#include <array>
#include <chrono>

namespace wafer {

class TypingRhythm {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr int kGaps = 8;             // gaps remembered
  static constexpr double kPauseMs = 1500.0;  // a longer gap is a pause, not part of the rhythm

  // A keystroke (didChange) or the document's opening (didOpen: a time, no gap) at t.
  void keystroke(Clock::time_point t, bool opening = false) {
    if (!opening && seen_) {
      const double gap = std::chrono::duration<double, std::milli>(t - last_).count();
      if (gap >= 0 && gap < kPauseMs) {
        gaps_[next_] = gap;
        next_ = (next_ + 1) % kGaps;
        count_ = std::min(count_ + 1, kGaps);
      }
    }
    last_ = t;
    seen_ = true;
  }
  Clock::time_point last() const { return last_; }
  bool seen() const { return seen_; }

  // The median of the remembered gaps in ms, or 0 while fewer than 3 are known.
  double typical_gap_ms() const {
    if (count_ < 3) return 0.0;
    std::array<double, kGaps> g{};
    std::copy(gaps_.begin(), gaps_.begin() + count_, g.begin());
    std::nth_element(g.begin(), g.begin() + count_ / 2, g.begin() + count_);
    return g[count_ / 2];
  }

 private:
  std::array<double, kGaps> gaps_{};
  int next_ = 0, count_ = 0;
  Clock::time_point last_{};
  bool seen_ = false;
};

// The first-token budget of an automatic request: `budget_ms` (the latencyBudgetMs setting;
// 0 = no budget), but while the user types with a typical gap g between keystrokes, at
// most half of g (so the suggestion shows before the next keystroke, with room to spare)
// and never below kTypingBudgetFloorMs (the rest of the cursor's line always stays).
inline constexpr int kTypingBudgetFloorMs = 100;
inline int typing_budget_ms(int budget_ms, double typical_gap_ms) {
  if (budget_ms <= 0 || typical_gap_ms <= 0) return budget_ms;
  const int rhythm = std::max(kTypingBudgetFloorMs, static_cast<int>(typical_gap_ms / 2));
  return std::min(budget_ms, rhythm);
}

}  // namespace wafer
