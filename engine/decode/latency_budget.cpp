#include "engine/decode/latency_budget.h"

#include <algorithm>

namespace wafer {
namespace {
constexpr double kWeight = 0.3;  // of the newest observation in the moving averages

void blend(double& average, double value) { average = average > 0 ? average + kWeight * (value - average) : value; }
}  // namespace

void ForwardCosts::observe(const Timings& t) {
  if (t.cancelled) return;
  if (t.tokens_prefilled >= 16 && t.prefill_ms > 0) blend(prefill_ms_per_token_, t.prefill_ms / t.tokens_prefilled);
  if (t.tokens_generated >= 2 && t.decode_ms > 0) blend(decode_ms_per_token_, t.decode_ms / t.tokens_generated);
}

long ForwardCosts::prefill_within(double budget_ms) const {
  if (!known()) return -1;
  const double left = budget_ms - decode_ms_per_token_;
  return left > 0 ? static_cast<long>(left / prefill_ms_per_token_) : 0;
}

size_t suffix_bytes_within(std::string_view suffix, const std::vector<TokenId>& tokens, size_t keep_tokens,
                           const Tokenizer& tokenizer) {
  if (keep_tokens >= tokens.size()) return suffix.size();
  size_t bytes = 0;
  for (size_t i = 0; i < keep_tokens; ++i) bytes += tokenizer.token_bytes(tokens[i]).size();
  bytes = std::min(bytes, suffix.size());
  const size_t first_line = suffix.find('\n');
  if (first_line == std::string_view::npos) return suffix.size();
  const size_t line_end = suffix.rfind('\n', bytes == 0 ? 0 : bytes - 1);
  return std::max(first_line + 1, line_end == std::string_view::npos ? 0 : line_end + 1);
}

}  // namespace wafer
