#include "engine/decode/speculation/draft_length.h"

#include <algorithm>

namespace wafer {

DraftLength::DraftLength(int max) : max_(std::max(max, 0)), k_(std::min(4, max_)) {}

void DraftLength::record(int proposed, int accepted) {
  if (proposed <= 0) return;
  if (accepted == proposed) {
    k_ = std::min(k_ + 2, max_);
  } else if (2 * accepted < proposed) {
    k_ = std::max(k_ / 2, std::min(1, max_));
  }
}

}  // namespace wafer
