// Flush-to-zero and denormals-are-zero for the calling thread. A softmax over thousands of
// keys produces many exp() results below FLT_MIN; Intel cores take a microcode assist for
// every operation on such a denormal (attention several times slower), and their values
// are far below anything that changes a logit. Every thread that runs engine arithmetic
// sets this: the pool's workers when they start, and the calling thread when it enters
// the engine (load, complete, a pool run).
#pragma once

namespace wafer {

// Sets FTZ|DAZ on x86 (MXCSR) and FZ on AArch64 (FPCR) for this thread; a no-op elsewhere.
void flush_denormals_in_this_thread();
// Clears that mode again (IEEE gradual underflow), for benchmarks and tests that must see
// what an unflushed thread computes.
void keep_denormals_in_this_thread();
// Whether this thread flushes denormals (false where the target has no such mode).
bool denormals_flushed_in_this_thread();

}  // namespace wafer
