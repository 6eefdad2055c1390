// Synthetic stand-ins for Qwen2.5-Coder models of a given size: Qwen2 architecture and
// dimensions ("0.5b", "1.5b", "7b"), random Q8_0 weights, and either Qwen2's real vocabulary
// ("qwen2", from the reference data: text tokenizes as for the real model) or word-like
// filler tokens ("filler"). Written to the temp directory once and reused. For benchmarks:
// random weights cost what real ones do, but predict nothing.
#pragma once

#include <string>

#include "engine/base/result.h"

namespace wafer::bench {

// The model file's path (written first when missing), or why it cannot be: an unknown shape
// or vocabulary, or a failed write.
Result<std::string> shape_model(const std::string& shape, const std::string& vocab);

}  // namespace wafer::bench
