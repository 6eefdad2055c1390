#include "engine/model/gate_threshold.h"

#include <cmath>

#include "engine/gguf/gguf.h"

namespace wafer {

float model_min_confidence(const GgufFile& file) {
  auto p = file.get_f32(kMinConfidenceKey);
  return p.ok() && std::isfinite(*p) && *p > 0 && *p <= 1 ? *p : -1.0f;
}

}  // namespace wafer
