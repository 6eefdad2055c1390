// Synthetic stand-ins for Qwen2.5-Coder models of a given size: Qwen2 architecture and
// dimensions ("0.5b", "1.5b", "7b"), random weights (Q8_0, Q4_0 or a Q4_K_M-style mix), and
// either Qwen2's real vocabulary ("qwen2", from the reference data: text tokenizes as for
// the real model) or word-like filler tokens ("filler"). Written to the temp directory once and reused. For benchmarks:
// random weights cost what real ones do, but predict nothing.
#pragma once

#include <string>

#include "engine/base/result.h"

namespace wafer::bench {

// The model file's path (written first when missing), or why it cannot be: an unknown shape,
// vocabulary or weight type ("q8_0", "q4_0", "q4_k_m"), or a failed write.
Result<std::string> shape_model(const std::string& shape, const std::string& vocab,
                                const std::string& weights = "q8_0");

}  // namespace wafer::bench
