// Whether the model believed its own suggestion enough to show it unasked: the probability of
// the least likely token it chose in the suggestion's first line (the line the user reads
// first and accepts most). One unsure choice is where a line goes wrong; a mean over the
// line's tokens hides it among the easy ones (a closing bracket, the rest of a name). A small
// model guessing, or any model in a file it does not know, makes such choices; those
// suggestions are mostly wrong and cost the user a look. An invoked request shows its best
// anyway.
#pragma once

#include <string_view>

#include "engine/types.h"

namespace wafer {

// The confidence of the part of the first line that is shown: the tokens that begin within
// the first line holding text of `shown` (the engine's text after post-processing, which
// cut a loop or a repeat off its end). Unchanged when the engine kept no tokens one by one.
Timings::Confidence shown_confidence(const Timings::Confidence& c, std::string_view shown);

// exp(least log-probability) of the first line's tokens; -1 when the engine did not report it.
double first_line_confidence(const Timings::Confidence& c);

// True when the confidence is known and below min_confidence (0: the gate is off).
bool below_confidence(const Timings::Confidence& c, double min_confidence);

// The threshold of a model whose file carries none (minConfidence `auto`); not calibrated.
inline constexpr double kDefaultMinConfidence = 0.3;

// The threshold in force: the setting when it is 0 or more, else (`auto`, -1) the one the
// model's file carries (ModelInfo::min_confidence), else kDefaultMinConfidence. `model` may
// be null (none loaded yet).
double gate_threshold(double setting, const ModelInfo* model);

}  // namespace wafer
