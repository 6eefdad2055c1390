// A copy predictor mixed into the network's next-token distribution. Code repeats itself (the
// call two lines up with one argument changed, the next case of a switch, a field list
// written twice), and a small network copies worse than it predicts. The copy predictor looks
// for the longest earlier repeat of the text's last tokens (at least min_match, at most
// max_match of them) and predicts the tokens that followed that repeat; after an L-token
// repeat it gets the weight w = L / (L + strength):
//     p(t) = (1 - w) * softmax(logits)(t) + w * (share of the repeats followed by t).
// An n-gram cache in the sense of the "naturalness of software" work (Tu, Su & Devanbu
// 2014; Hellendoorn & Devanbu 2017), here over the prompt and the completion so far.
// A model opts in with the GGUF key wafer.copy_strength (the bundled model does); the
// engine option EngineOptions::copy_strength overrides it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "engine/tokenizer/tokenizer.h"

namespace wafer {

class GgufFile;

inline constexpr std::string_view kCopyStrengthKey = "wafer.copy_strength";
// Separates the texts of a copy predictor's stream: never a token, so a repeat that runs into it
// predicts nothing (rather than a control token, which would end the completion).
inline constexpr TokenId kCopySeparator = -1;
// The model file's copy strength (kCopyStrengthKey); 0 (off) when absent or not positive.
float model_copy_strength(const GgufFile& file);

struct CopyParams {
  float strength = 0;  // the c in w = L / (L + c): smaller trusts repeats more; <= 0: off
  int min_match = 2;   // shorter repeats are ignored
  int max_match = 32;  // longer ones count as this long
};

class CopyPredictor {
 public:
  explicit CopyPredictor(CopyParams params = {}) : params_(params) {}

  bool enabled() const { return params_.strength > 0; }

  // The text to copy from, in reading order with the text before the cursor last (for a
  // FIM prompt: the suffix part, then the prefix part), texts separated by kCopySeparator.
  void reset(std::span<const TokenId> stream);
  void push(TokenId token);  // a token of the completion, once it is chosen

  // When the stream's end repeats at least min_match tokens: writes the log of the mixed
  // distribution into `out` (resized to logits.size()) and returns true. Otherwise returns
  // false and leaves `out` alone: the caller uses the logits as they are.
  bool mix(std::span<const float> logits, std::vector<float>& out);

  int last_match() const { return last_match_; }  // L found by the latest mix()

 private:
  CopyParams params_;
  std::vector<TokenId> stream_;
  std::vector<TokenId> follow_;  // tokens after the longest repeats (reused buffer)
  int last_match_ = 0;
};

}  // namespace wafer
