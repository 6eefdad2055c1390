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
  if (costed_) return choose();
  if (accepted == proposed) {
    k_ = std::min(k_ + 2, max_);
  } else if (2 * accepted < proposed) {
    k_ = std::max(k_ / 2, std::min(1, max_));
  }
}

void DraftLength::record_costs(int proposed, double draft_ms, double verify_ms) {
  if (proposed <= 0 || max_ == 0 || !(draft_ms >= 0) || !(verify_ms > 0)) return;
  costed_ = true;
  draft_ms_ = kCostDecay * draft_ms_ + draft_ms;
  draft_tokens_ = kCostDecay * draft_tokens_ + proposed;
  const size_t n = static_cast<size_t>(std::min(proposed + 1, kMaxLength + 1)) - 1;
  for (size_t i = 0; i < passes_.size(); ++i) {
    passes_[i] *= kCostDecay;
    pass_ms_[i] *= kCostDecay;
  }
  passes_[n] += 1;
  pass_ms_[n] += verify_ms;
  choose();
}

void DraftLength::choose() {
  if (draft_tokens_ <= 0) return;
  // The verification pass's line ms = a + b (n - 1), least squares over the sizes seen,
  // each size's mean weighted by its decayed count; one size seen: b = kRowShare a.
  double w = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  int sizes = 0;
  for (size_t i = 0; i < passes_.size(); ++i) {
    if (passes_[i] <= 1e-9) continue;
    const double x = static_cast<double>(i), y = pass_ms_[i] / passes_[i], c = passes_[i];
    w += c, sx += c * x, sy += c * y, sxx += c * x * x, sxy += c * x * y;
    ++sizes;
  }
  if (w <= 0) return;
  const double mx = sx / w, my = sy / w, var = sxx / w - mx * mx;
  double b = sizes >= 2 && var > 1e-9 ? (sxy / w - mx * my) / var : kRowShare * my / (1 + kRowShare * mx);
  b = std::max(b, 0.0);
  const double a = std::max(my - b * mx, 1e-3);
  const double d = draft_ms_ / draft_tokens_, p = std::min(acceptance(), 0.999);
  int best = std::min(1, max_);
  double best_rate = 0, expected = 1, pk = 1;
  for (int k = 1; k <= std::min(max_, kMaxLength); ++k) {
    pk *= p;
    expected += pk;  // 1 + p + ... + p^k
    const double rate = expected / (k * d + a + b * k);
    if (rate > best_rate) best_rate = rate, best = k;
  }
  k_ = best;
}

}  // namespace wafer
