// The confidence gate: the first line's least likely token against the threshold.
#include <catch2/catch.hpp>

#include <cmath>

#include "server/prompt/confidence_gate.h"

using namespace wafer;

TEST_CASE("confidence gate: the threshold and unknown confidence", "[confidence_gate]") {
  Timings::Confidence c;
  CHECK(first_line_confidence(c) == -1);
  CHECK_FALSE(below_confidence(c, 0.5));  // not reported: not gated
  c.tokens = 3;
  c.mean_logprob = static_cast<float>(std::log(0.6));  // the mean does not count: the least likely token does
  c.min_logprob = static_cast<float>(std::log(0.2));
  CHECK(first_line_confidence(c) == Approx(0.2).epsilon(1e-5));
  CHECK(below_confidence(c, 0.3));
  CHECK_FALSE(below_confidence(c, 0.1));
  CHECK_FALSE(below_confidence(c, 0));  // 0: off
}

TEST_CASE("confidence gate: only the tokens of the shown first line count", "[confidence_gate]") {
  // "f(x" + "(x" + "(x" + "\n" ...: the loop's tokens are likely, the first one is not.
  Timings::Confidence c;
  const float lp[] = {std::log(0.1f), std::log(0.9f), std::log(0.9f), std::log(0.9f)};
  const uint32_t end[] = {3, 5, 7, 8};
  for (int i = 0; i < 4; ++i) {
    c.logprob[static_cast<size_t>(i)] = lp[i];
    c.end[static_cast<size_t>(i)] = end[i];
  }
  c.tokens = 4;
  c.mean_logprob = (lp[0] + 3 * lp[1]) / 4;
  c.first_prob = 0.1f;
  const Timings::Confidence shown = shown_confidence(c, "f(x");
  CHECK(shown.tokens == 1);
  CHECK(first_line_confidence(shown) == Approx(0.1).epsilon(1e-4));
  CHECK(shown_confidence(c, "f(x(x(x\n").tokens == 3);  // the line break is not of the line
  CHECK(shown_confidence(Timings::Confidence{}, "x").tokens == 0);

  // An unsure token the filters cut off does not hold back what is left of the line.
  c.logprob[0] = std::log(0.9f);
  c.logprob[2] = std::log(0.05f);
  c.min_logprob = std::log(0.05f);
  CHECK(first_line_confidence(shown_confidence(c, "f(x(x")) == Approx(0.9).epsilon(1e-4));
  CHECK(first_line_confidence(shown_confidence(c, "f(x(x(x")) == Approx(0.05).epsilon(1e-4));
}

TEST_CASE("confidence gate: auto takes the model file's threshold, else the default", "[confidence_gate]") {
  ModelInfo calibrated;
  calibrated.min_confidence = 0.75f;
  ModelInfo plain;
  CHECK(gate_threshold(-1, &calibrated) == Approx(0.75));
  CHECK(gate_threshold(-1, &plain) == kDefaultMinConfidence);
  CHECK(gate_threshold(-1, nullptr) == kDefaultMinConfidence);
  CHECK(gate_threshold(0.3, &calibrated) == 0.3);  // a setting wins
  CHECK(gate_threshold(0, &calibrated) == 0);      // 0: off, whatever the file says
}
