// Multiple suggestions for an explicitly invoked inline completion (triggerKind 1): the
// greedy suggestion first, then sampled alternatives the editor can cycle through. Each
// alternative is the greedy request sampled with a temperature, a top-p cut and a seed of
// its own (its index), so the same document gives the same alternatives every time.
// Alternatives go through the same stop rules and filters as the greedy suggestion; the
// set keeps only distinct, non-blank results.
#pragma once

#include <string>
#include <vector>

#include "engine/engine.h"

namespace wafer {

// The request for sampled alternative `index` (1-based; 0 is the greedy one): `greedy`
// with the sampling settings and seed = index.
CompletionRequest alternative_request(const CompletionRequest& greedy, int index, double temperature, double top_p);

// The suggestions to offer, in order of arrival: add() keeps a text unless it is blank or
// equal to a kept one after trimming whitespace at both ends.
class SuggestionSet {
 public:
  bool add(std::string text);
  const std::vector<std::string>& texts() const { return texts_; }
  size_t size() const { return texts_.size(); }

 private:
  std::vector<std::string> texts_;
  std::vector<std::string> trimmed_;
};

}  // namespace wafer
