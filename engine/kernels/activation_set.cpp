#include "engine/kernels/kernels.h"

namespace wafer::kernels {

void ActivationSet::reset(const float* x, int n, int64_t cols, int64_t stride) {
  x_ = x;
  n_ = n;
  cols_ = cols;
  stride_ = stride;
  for (auto& c : converted_) c.valid = false;
}

ActivationSet::Converted& ActivationSet::slot(const ActivationFormat& f) {
  for (auto& c : converted_)
    if (c.format == f) return c;
  converted_.push_back(Converted{f, 0, {}, false});
  return converted_.back();
}

}  // namespace wafer::kernels
