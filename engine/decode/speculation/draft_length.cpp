#include "engine/decode/speculation/draft_length.h"

#include <algorithm>
#include <cmath>

namespace wafer {

namespace {

// The weight of what was seen against what comes after it. Acceptance changes with the
// text (a draft agrees on boilerplate, not on a new name): it decays per drafted token
// looked at, so ~20 tokens count whatever the length. Costs change with the machine and
// the depth: they decay per round, ~30 rounds counting.
constexpr double kAcceptDecay = 0.95;
constexpr double kCostDecay = 0.97;
constexpr double kPriorLooked = 1;      // the acceptance prior's weight, in drafted tokens...
constexpr double kPriorAccept = 0.5;    // ...and its value
constexpr double kRowShare = 0.1;       // a verification row's cost, of a one-token pass, until fitted

}  // namespace

DraftLength::DraftLength(int max) : max_(std::max(max, 0)), k_(std::min(4, max_)) {}

double DraftLength::acceptance() const {
  return (accepted_ + kPriorAccept * kPriorLooked) / (looked_ + kPriorLooked);
}

void DraftLength::record(int proposed, int accepted) {
  if (proposed <= 0) return;
  const int looked = accepted + (accepted < proposed ? 1 : 0);
  const double keep = std::pow(kAcceptDecay, looked);
  looked_ = keep * looked_ + looked;
  accepted_ = keep * accepted_ + accepted;
  rejected_ = accepted == 0 ? rejected_ + 1 : 0;
  if (costed_) return;  // record_costs() of the same draft chooses
  if (accepted == proposed) {
    k_ = std::min(k_ + 2, max_);
  } else if (2 * accepted < proposed) {
    k_ = std::max(k_ / 2, std::min(1, max_));
  }
}

void DraftLength::CostLine::add(int x, double t, double decay) {
  for (size_t i = 0; i < count.size(); ++i) {
    count[i] *= decay;
    ms[i] *= decay;
  }
  const size_t i = static_cast<size_t>(std::clamp(x, 0, kMaxLength));
  count[i] += 1;
  ms[i] += t;
}

bool DraftLength::CostLine::fit(double slope_share, double* a, double* b) const {
  // Least squares over the sizes seen, each size's mean weighted by its decayed count.
  double w = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  int sizes = 0;
  for (size_t i = 0; i < count.size(); ++i) {
    if (count[i] <= 1e-9) continue;
    const double x = static_cast<double>(i), y = ms[i] / count[i], c = count[i];
    w += c, sx += c * x, sy += c * y, sxx += c * x * x, sxy += c * x * y;
    ++sizes;
  }
  if (w <= 0) return false;
  const double mx = sx / w, my = sy / w, var = sxx / w - mx * mx;
  *b = sizes >= 2 && var > 1e-9 ? (sxy / w - mx * my) / var : slope_share * my / (1 + slope_share * mx);
  *b = std::max(*b, 0.0);
  *a = std::max(my - *b * mx, 1e-3);
  return true;
}

void DraftLength::record_step(double ms) {
  if (!(ms > 0)) return;
  step_count_ = kCostDecay * step_count_ + 1;
  step_ms_ = kCostDecay * step_ms_ + ms;
}

void DraftLength::record_costs(int proposed, double draft_ms, double verify_ms) {
  if (proposed <= 0 || max_ == 0 || !(draft_ms >= 0) || !(verify_ms > 0)) return;
  costed_ = true;
  skipped_ = 0;
  ++rounds_;
  draft_.add(proposed - 1, draft_ms, kCostDecay);
  verify_.add(proposed, verify_ms, kCostDecay);
  choose();
}

void DraftLength::choose() {
  // Until another length is seen, a draft's tokens cost the same each (slope = the first's)
  // and a verification row kRowShare of a one-token pass.
  double da = 0, db = 0, va = 0, vb = 0;
  if (!draft_.fit(1.0, &da, &db) || !verify_.fit(kRowShare, &va, &vb)) return;
  const double p = std::min(acceptance(), 0.999);
  int best = std::min(1, max_);
  double best_rate = 0, expected = 1, pk = 1;
  for (int k = 1; k <= std::min(max_, kMaxLength); ++k) {
    pk *= p;
    expected += pk;  // 1 + p + ... + p^k
    const double rate = expected / (da + db * (k - 1) + va + vb * k);
    if (rate > best_rate) best_rate = rate, best = k;
  }
  k_ = best;
  explore_ = rounds_ % kExploreEvery == kExploreEvery - 1;
  // The model alone: one token per plain step, as measured, else as long as the shortest
  // verification pass (which on most machines costs a little more than a plain step).
  const double step = step_count_ > 1e-9 ? step_ms_ / step_count_ : va + vb;
  paused_ = best_rate * step < 1 && rejected_ >= kPauseAfter;
  saving_ms_ = best_rate > 0 ? std::max(0.0, step - 1 / best_rate) : 0;
}

}  // namespace wafer
