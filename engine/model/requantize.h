// Weight matrices requantized at load to a smaller type (Q4_0 or Q5_0), for a draft model
// (speculative decoding): its tokens only have to be right often enough for the model to
// accept them, and every token it drafts costs a pass over all its weights, so a Q8_0 draft
// read as Q4_0 (18 bytes per 32 weights instead of 34) or Q5_0 (22) drafts in a little over
// half or two thirds of the time. Each row is dequantized to floats and quantized again as
// the GGUF writer quantizes floats (engine/gguf/gguf_writer.h).
#pragma once

#include <memory>

#include "engine/base/result.h"
#include "engine/kernels/kernels.h"
#include "engine/runtime/threadpool.h"

namespace wafer {

// The types a matrix can be requantized to.
bool is_requantize_target(TensorType to);

// Whether requantizing a matrix of `type` with rows of `cols` to `to` makes its rows smaller
// (to Q4_0: F32, F16, BF16, Q8_0, Q5_0, Q5_K, Q6_K ... yes; Q4_0, Q4_K no) and is possible
// (`to` a requantize target, cols a whole number of its blocks, `type` one wafer reads).
bool requantize_shrinks(TensorType type, TensorType to, int64_t cols);

// A matrix's rows in a new type, in storage of its own: `view` points into `owned`.
struct Requantized {
  kernels::MatrixView view;
  std::shared_ptr<const uint8_t> owned;
};

// The rows of `w` as `to`, split across the pool's threads (none: the calling thread).
// Fails when `to` is not a requantize target, the rows cannot be read as floats or are not
// whole blocks of `to`.
Result<Requantized> requantize(const kernels::MatrixView& w, TensorType to, ThreadPool* pool);

}  // namespace wafer
