// The engine's value types: what a caller configures (EngineOptions), what it asks
// (CompletionRequest), what it learns about the model (ModelInfo) and what comes back
// (CompletionEvent, Timings, StopReason). Plain data, no behaviour: lower layers of the
// engine and the server's prompt and daemon layers include this header, not the facade.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace wafer {

// One piece of another file (or of the same file beyond the prompt window) given to the
// model as extra context: definitions and signatures the code near the cursor refers to.
// The path is relative to the workspace when the server knows the workspace root; FIM
// templates that have file markers show it to the model (Qwen2.5-Coder and StarCoder2
// repository-level prompts, llama.cpp's `input_extra` chunks).
struct ContextFile {
  std::string path;
  std::string text;
  const char* source = "";  // where the daemon found it ("open", "same_file", "index", "recent"): statistics only
};

struct EngineOptions {
  std::string model_path;
  int threads = 0;           // 0: one per physical core
  int context_length = 4096; // KV cache size in tokens (clamped to the model's own)
  int max_sessions = 4;      // KV caches kept (one per document), LRU-evicted
  int64_t max_cache_mb = 0;  // memory cap for all KV caches together (0: none); fewer sessions then
  int prefill_chunk = 64;    // prompt tokens per forward step: the granularity of max_prefill_ms
                             // (a remainder of up to half a chunk joins the step before it)
  int max_draft = 8;         // speculative decoding's longest draft (0: off; greedy only)
  bool prompt_lookup = true; // drafts from the prompt's repeats (engine/decode/speculation/prompt_lookup.h)
  // A draft model: a small GGUF model of the same vocabulary (and FIM and end tokens) as the
  // model, that drafts tokens for the model to verify (engine/decode/speculation/draft_model.h); "" none.
  // A mismatched vocabulary fails the load. Its KV cache has context_length tokens too.
  std::string draft_model_path;
  // The draft model's weights: "q5_0" or "q4_0" reads its matrices stored with more bits
  // per weight (Q8_0, F16, Q6_K ...) as that type, requantized at load: a Q8_0 draft then
  // drafts in about two thirds or a little over half of the time, and agrees with itself as
  // stored at most tokens (engine/model/requantize.h); "keep": as stored. Another value
  // fails the load.
  std::string draft_quant = "q5_0";
  // The draft model scores only the token ids below this and the ids its history holds
  // (the prompt and the output so far); every other id it never proposes. With Qwen2's
  // vocabulary in merge order the first 32,768 ids hold about 94 % of the tokens of source
  // code, and with the history's ids about 97-98 %, for under a quarter of its output layer
  // (a quarter of a 0.5B model's pass). 0, or at least the vocabulary: every id.
  int draft_vocab = 32768;
  // Reuse cached spans of at least this many tokens that moved (e.g. the suffix after a
  // keystroke) by shifting their keys instead of recomputing them; 0: off (the daemon's
  // chunkReuse sets it, 32 by default). Approximate: see engine/decode/chunk_reuse.h.
  int chunk_reuse_min = 0;
  // The FIM prompt format: "auto" (from the model's tokens) or a family name, optionally
  // with "-spm" (see engine/decode/fim_template.h). An unknown name fails the load.
  std::string fim_format = "auto";
  // The copy predictor (engine/decode/copy_predictor.h): < 0 uses the model file's wafer.copy_strength
  // (off when absent), 0 is off, > 0 is the strength c (after an L-token repeat the copy
  // model weighs L / (L + c)).
  float copy_strength = -1;
  // KV cache element type: "f16" (IEEE half: half the memory, and half the bytes attention
  // reads per token deep in a context) or "f32" (exact). An unknown name fails the load.
  std::string kv_type = "f16";
  // Lock the weights a forward pass reads into RAM (mlock), so they are never paged out
  // while the editor idles. A refusal (RLIMIT_MEMLOCK) does not fail the load: it is
  // reported in ModelInfo::memory_lock.
  bool lock_memory = false;
  // AMX tiles for the prefill matmuls of Q8_0/Q4_0/Q5_0 weights where the CPU has them
  // (Intel Sapphire Rapids and later Xeons; kernels/amx). false: the AVX-512 VNNI kernels
  // only, and AMX is never probed.
  bool amx = true;
  // With amx: BF16 tiles (TDPBF16PS) for batches of 32 tokens or more where the CPU has
  // AMX-BF16: faster prefill, results within 2^-7 x sum |w x a| of the integer kernels'
  // instead of their bits (kernels/amx/amx_bf16_kernels.h). Off by default: farther from
  // exact (float64) arithmetic than the int8 tiles (docs/architecture.md, AMX).
  bool amx_bf16 = false;
  // Token healing (engine/decode/token_healing.h): the prefix's last token is taken off the prompt
  // and regenerated, so a cursor inside a word continues the word the way the model would
  // have written it; the healed bytes are not repeated in the completion.
  bool token_healing = true;
};

// Ordinary code whose token count with a model's tokenizer (ModelInfo::sample_tokens) tells
// a caller that sizes prompts by an estimate how dense the tokenizer is.
inline constexpr std::string_view kTokenDensitySample =
    "def parse_args(self, args=None, namespace=None):\n"
    "    args, argv = self.parse_known_args(args, namespace)\n"
    "    if argv:\n"
    "        msg = _('unrecognized arguments: %s') % ' '.join(argv)\n"
    "        self.error(msg)\n"
    "    return args\n"
    "\n"
    "static int count_items(const struct list *items, size_t limit) {\n"
    "  int n = 0;\n"
    "  for (size_t i = 0; i < limit && items[i].value != NULL; ++i) n += items[i].weight;\n"
    "  return n;\n"
    "}\n";

// What the model is and what it can do, for the server's prompt building and status.
struct ModelInfo {
  std::string name;          // general.name or the file name
  std::string architecture;  // "llama", "qwen2", ...
  bool has_fim = false;      // false: the model cannot fill in the middle
  int context_length = 0;
  int sample_tokens = 0;     // kTokenDensitySample's tokens with the model's tokenizer (0: unknown)
  int64_t parameters = 0;
  std::string fim_format;  // the resolved FIM template, e.g. "qwen" or "starcoder-spm"
  float copy_strength = 0;   // the copy predictor's strength in use (0: off; engine/decode/copy_predictor.h)
  float min_confidence = -1; // the file's calibrated confidence gate (engine/model/gate_threshold.h); -1 none
  // With lock_memory: "locked N MiB of weights in RAM", or "cannot lock the weights in RAM:
  // ..." (why, and which limit to raise); "" when not asked.
  std::string memory_lock;
  // The KV caches: "KV cache f16: up to 4 sessions of 4096 tokens, 48.0 MiB each" (local
  // engines; "" for a remote backend).
  std::string kv_cache;
  // The draft model for speculative decoding: "name, N parameters" ("" none).
  std::string draft_model;
  // The compute: "kernels avx512-vnni, 2 threads" (the backend CPUID chose; local engines).
  std::string kernels;
};

// One fill-in-the-middle completion. The engine applies the model's FIM template.
struct CompletionRequest {
  std::string session_key;        // e.g. the document URI: selects the KV cache to reuse
  std::string prefix;             // text before the cursor (already windowed by the caller)
  std::string suffix;             // text after the cursor
  std::vector<ContextFile> extra; // extra context files placed before the current one
  std::string file_path;          // the current file, relative to the workspace ("" unknown)
  std::string repo_name;          // the workspace folder's name ("" unknown)
  std::string line_comment = "#"; // the language's line comment, for path headers
  // More of the document for the copy predictor (engine/decode/copy_predictor.h) only, never the prompt:
  // the text just before `prefix` and just after `suffix`. Ignored without a copy predictor.
  std::string copy_before;
  std::string copy_after;
  int max_tokens = 64;
  // Fill the session's cache with the prompt and stop there, generating nothing (a warm-up
  // ahead of a request expected at this position). max_tokens still sizes the prompt's room,
  // so the prompt is the one a real request with the same fields would get.
  bool prefill_only = false;
  // With prefill_only: also bring the draft model's cache to the prompt (a warm-up in idle
  // time, so that the request that follows drafts at once instead of prefilling the draft's
  // cache between its first and second tokens). Not for a prefill that a waiting request
  // would wait out: the request's first token would wait for the draft too.
  bool warm_draft = false;
  // With warm_draft: set from any thread to end the draft model's part of the warm-up
  // while the model's prefill runs on (a request that waits for the model's part must not
  // wait for the draft's). When present, the draft's part checks this flag instead of
  // `cancel`: whoever cancels sets both (the daemon's scheduler does).
  std::shared_ptr<std::atomic<bool>> stop_draft;
  // Latency first, for a request someone waits for: when the draft model's cache is far
  // behind this prompt (another document, a jump: its catch-up would run between the
  // first and second tokens) and catching it up is expected to cost more than drafting
  // saves over max_tokens (DraftModel::catch_up_pays), decode without the draft model and
  // say so (Timings::draft_behind), so that the caller catches it up in idle time
  // (warm_draft). Off: the draft catches up whenever it drafts (background work, one-shot
  // completions).
  bool draft_catch_up_later = false;
  double max_prefill_ms = 0;      // 0: no limit
  // The first token within this long after the engine starts the request (0: no budget):
  // when the prefill the cache cannot spare would take longer, the suffix is cut, whole
  // lines from its end, to fit (engine/decode/latency_budget.h).
  double first_token_budget_ms = 0;
  double max_decode_ms = 0;       // 0: no limit
  std::vector<std::string> stop;  // stop strings (not included in the output)
  float temperature = 0;          // 0: greedy
  float top_p = 0.95f;            // nucleus cut when sampling (temperature > 0); 1: off
  uint64_t seed = 0;
  // Checked between tokens, prefill chunks and layers; set from any thread to stop early.
  std::shared_ptr<std::atomic<bool>> cancel;
  // Called with the whole text so far after each token; return true to stop (syntax-aware
  // stopping by the server: block end, indentation drop, ...).
  std::function<bool(std::string_view text)> should_stop;
};

struct Timings {
  double queue_ms = 0;
  double tokenize_ms = 0;
  int tokens_reused = 0;      // taken from the cache (the common prefix plus moved chunks)
  int tokens_moved = 0;       // of which moved to new positions (chunk reuse)
  int tokens_prefilled = 0;
  double prefill_ms = 0;
  double first_token_ms = 0;  // from the start of complete() to the first generated token
  int tokens_generated = 0;
  double decode_ms = 0;
  int drafts_proposed = 0;
  int drafts_accepted = 0;
  int model_drafts_proposed = 0;  // of the drafts, those the draft model made (not prompt lookup)
  int model_drafts_accepted = 0;
  double draft_ms = 0;        // the draft model's forward passes: of decode_ms (prefill-only: its warm-up)
  // The draft model sat this request out: its cache was too far behind the prompt
  // (CompletionRequest::draft_catch_up_later).
  bool draft_behind = false;
  int healed_bytes = 0;       // token healing: bytes of the prefix regenerated (0: no healing)
  int budget_cut_tokens = 0;  // suffix tokens left out to meet first_token_budget_ms
  // Of tokens_prefilled, those of each part of the prompt: other files (extra context), the
  // text before the cursor, the text after it, and markers and headers.
  struct PromptParts {
    int extra = 0, prefix = 0, suffix = 0, frame = 0;
  } prefilled_parts;
  double total_ms = 0;
  bool cancelled = false;
  // The model's own confidence in the text's first line: the log-probabilities (natural
  // log, before any copy predictor's mixing) of the tokens it chose up to and including
  // the one that ends the first line holding text. tokens == 0: not known (nothing
  // generated, or a backend that does not report them).
  // The first kKept tokens are kept one by one, so that a caller that shows less than the
  // whole first line can judge the part it shows (confidence_gate.h in the server).
  struct Confidence {
    static constexpr int kKept = 48;
    int tokens = 0;
    float mean_logprob = 0;
    float min_logprob = 0;
    float first_prob = 0;  // the probability of the first token
    std::array<float, kKept> logprob{};  // of token i < min(tokens, kKept)
    std::array<uint32_t, kKept> end{};   // byte offset in the text where token i ends
  } confidence;
};

enum class StopReason { kEndOfText, kMaxTokens, kStopString, kStopCallback, kBudget, kCancelled, kError };

// Streamed to the caller: text deltas (always whole UTF-8 sequences), then one final event.
struct CompletionEvent {
  enum class Kind { kText, kDone, kError } kind = Kind::kText;
  std::string text;      // kText: the new text; kDone: the whole completion
  StopReason stop = StopReason::kEndOfText;
  // kDone and kError; kText: only timings.confidence, as far as the text so far goes
  Timings timings;
  std::string error;     // kError: what went wrong
  // kError: why. kNoModel: nothing was loaded to answer (not a failure of a model).
  enum class Failure { kEngine, kNoModel } failure = Failure::kEngine;
};

using CompletionCallback = std::function<void(const CompletionEvent&)>;

}  // namespace wafer
