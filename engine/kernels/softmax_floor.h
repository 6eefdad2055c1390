// The softmax weights that are dropped: e^(score - max) for score - max <= kSoftmaxFloor
// becomes exactly 0, in the scalar reference and in every SIMD kernel alike.
//
// Over a long context most scores sit far below the maximum, and e^(score - max) for them
// is a denormal (below FLT_MIN once score - max < -87.3), or becomes one after the
// normalisation and the weighting of the value rows. Intel cores take a microcode assist
// for every operation on a denormal (attention several times slower), so the
// weights must not produce them, whatever the thread's floating-point mode.
//
// e^-40 = 4.2e-18: even 32,768 such weights add up to 1.4e-13 of the largest one (which is
// 1), six orders of magnitude below a float's rounding error, so dropping them changes no
// result; and what is kept stays normal through the normalisation (divided by at most the
// context length) and the multiplication by any F16 value (down to 6e-8).
#pragma once

namespace wafer {

inline constexpr float kSoftmaxFloor = -40.0f;

}  // namespace wafer
