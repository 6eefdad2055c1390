// The confidence gate's threshold calibrated for a model, carried by its file: the GGUF key
// wafer.min_confidence, a probability in (0, 1]. The daemon's minConfidence `auto` uses it
// (server/prompt/confidence_gate.h); the bundled model carries one, measured with
// bench_quality on code it never saw.
#pragma once

#include <string_view>

namespace wafer {

class GgufFile;

inline constexpr std::string_view kMinConfidenceKey = "wafer.min_confidence";

// The file's threshold; -1 when the key is absent or not a probability in (0, 1].
float model_min_confidence(const GgufFile& file);

}  // namespace wafer
