// Test helper (header-only): FIM prompts for speculative decoding tests -- repetitive code
// whose continuation prompt lookup can draft, degenerate ones (one character, no prefix),
// and seeded random text over a small alphabet.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wafer::test {

using PromptPair = std::pair<std::string, std::string>;  // prefix, suffix

inline std::vector<PromptPair> repetitive_prompts() {
  std::vector<PromptPair> p;
  std::string lines;
  for (int i = 0; i < 12; ++i) lines += "    total += values[" + std::to_string(i % 3) + "]\n";
  p.push_back({"def f(values):\n    total = 0\n" + lines + "    total += ", "\n    return total\n"});
  p.push_back({"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", ""});
  p.push_back({"abcabcabcabcabcabcabcabcabcabcabcabc", "abcabc"});
  p.push_back({"import os\nimport sys\nimport re\nimport os\nimport ", "\n"});
  p.push_back({"for i in range(10):\n    print(i)\nfor j in range(10):\n    print(", ")\n"});
  p.push_back({"x", ""});
  p.push_back({"", "return 0\n"});
  return p;
}

// n characters of `alphabet`, from a linear congruential generator seeded with `seed`.
inline std::string random_text(int seed, int n, std::string_view alphabet) {
  std::string s;
  uint32_t state = static_cast<uint32_t>(seed) * 2654435761u + 1;
  for (int i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    s += alphabet[(state >> 24) % alphabet.size()];
  }
  return s;
}

}  // namespace wafer::test
