// Command-line options of the `wafer` binary: one struct, parsed in one place
// (options.cpp) as the settings table says (settings_table.h: one row per flag or LSP key).
// Subcommands read the fields they need; the LSP daemon later overlays
// `initializationOptions` on the same fields.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/result.h"

namespace wafer {

// `--listen` without a value: the default local socket (server/cli/listen_socket.h).
inline constexpr std::string_view kListenLocal = "local";

struct Options {
  std::string command;                // "lsp", "complete", "tokenize", "generate", "info", "bench", "pull", "" (none)
  std::vector<std::string> positional;  // arguments after the subcommand that are not flags
  int positional_before_dashes = -1;    // how many of them came before "--" (-1: no "--")
  bool help = false;
  bool version = false;

  // Model and engine (lsp, complete, generate, info, tokenize, bench).
  std::string model;
  std::string draft_model;            // speculative decoding's draft model: path or catalogue name ("" none)
  std::string draft_quant = "q5_0";   // the draft's weights: q5_0 or q4_0 (requantized at load) or keep
  int draft_vocab = 32768;            // the draft scores ids below this and the history's (0: all)
  int threads = 0;                    // 0: one per physical core
  int context = 4096;
  std::string kv_type = "f16";        // KV cache elements: f16, f32 or q8_0 (engine/compute/kv_cache.h)
  std::string fim_format = "auto";    // FIM prompt format: auto or a family, optionally -spm (engine/decode/fim_template.h)
  int chunk_reuse = 32;               // move cached spans >= this many tokens (0: off); see docs/settings.md
  double copy_strength = -1;          // copy predictor (engine/decode/copy_predictor.h): -1 the model's own, 0 off, > 0 strength
  bool token_healing = true;          // regenerate the prefix's last token (engine/decode/token_healing.h)

  // lsp
  std::string listen;                 // kListenLocal, a socket path (has a '/' or '\\') or HOST:PORT; empty: stdio
  bool allow_remote = false;
  std::vector<std::string> allow_roots;  // --listen: the folders a client's workspace may be in; empty: the home folder
  int max_index_files = 20000;        // the workspace index's files, whatever indexMaxFiles says
  int max_index_mib = 64;             // the source the workspace index reads, in MiB
  std::string token_file;             // --listen: the token clients present; empty: a fresh one (cli/listen_token_file.h)
  int token_timeout_ms = 5000;        // --listen: a client's token line must arrive within this long
  // What one client may make the daemon hold (flags only: a client must not raise its own).
  int max_message_mib = 64;           // one LSP message's Content-Length
  int max_open_documents = 1000;
  int max_document_mib = 256;         // the texts of the open documents together
  int max_pending_requests = 64;      // requests received and not answered yet
  int debounce_ms = 75;
  std::string log_file;
  int max_tokens = 64;                // completion budget in tokens
  int prefix_lines = 60;              // FIM window: lines before the cursor
  int suffix_lines = 20;              // FIM window: lines after the cursor
  int window_bytes = 16384;           // FIM window: byte cap on prefix and on suffix
  int prefix_tokens = 1024;           // FIM window: prefix budget in (estimated) tokens
  int suffix_tokens = 256;            // FIM window: suffix budget in tokens
  int prefix_step_lines = 16;         // FIM window: the prefix start moves in steps of this many lines
  int extra_tokens = 512;             // budget for definitions from other files and beyond the window
  int recent_tokens = 256;            // budget for chunks the user recently edited elsewhere (0: off)
  bool open_buffers = true;           // definitions from the other open documents in the extra context
  bool workspace_index = true;        // index the definitions of the workspace's files (index/workspace_index.h)
  int index_max_files = 5000;         // the index's cap on files
  std::vector<std::string> exclude;   // gitignore patterns of files kept out of prompts (index/exclusion.h)
  bool complete_excluded_files = true;  // an excluded document gets local completions (never remote ones)
  int alternatives = 3;               // suggestions for an invoked request: the greedy one + sampled (1: greedy only)
  double alternatives_temperature = 0.7;  // sampling of the alternatives
  double alternatives_top_p = 0.95;
  int ahead_tokens = 48;              // decode this far past a returned suggestion while idle (0: off)
  double min_confidence = -1;         // automatic requests: hold back a suggestion the model is less sure of (0: off; -1 the model's)
  bool warm = true;                   // honour wafer/warm: prefill a document's prompt at a position while idle
  bool early_prefill = true;          // prefill a keystroke's prompt during its debounce, while the engine is idle
  int latency_budget_ms = 300;        // typing: first token within this long, or the suffix is cut (0: off)
  bool typing_budget = true;          // ...and within half the typical gap between keystrokes (typing_rhythm.h)
  bool amx = true;                    // AMX tiles for prefill where the CPU has them (EngineOptions::amx)
  bool amx_bf16 = false;              // ...in BF16 for batches of 32+ tokens (EngineOptions::amx_bf16)
  bool mlock = false;                 // lock the model's weights in RAM (EngineOptions::lock_memory)
  std::vector<std::string> languages; // enabled languageIds; empty: all
  std::string fake_engine;            // tests only: scripted engine instead of a model
  // Remote backend (lsp, bench replay): where completions come from instead of --model.
  std::string backend = "local";      // local | llama-server | openai
  std::string backend_url;            // the server's base URL (or its endpoint's full URL)
  std::string backend_model;          // openai: the "model" field
  std::string api_key_env;            // the API key is read from this environment variable...
  std::string api_key_file;           // ...or from this file (never from a flag: it would show in ps)
  int backend_timeout_ms = 10000;     // one remote request, at most

  // tokenize / info
  bool ids = false;
  bool pieces = false;
  bool special = false;               // tokenize: parse special tokens written in the text
  std::string workspace;              // info: list what the content exclusion leaves out of this folder
  bool json = false;
  bool residency = false;             // info: bytes per token vs caches and bandwidth

  // generate
  std::optional<std::string> prompt;
  std::string prompt_ids;             // "1,15,300"
  int n_predict = 64;
  float temperature = 0;
  unsigned long long seed = 0;
  std::string logits_json;

  // pull
  std::string sha256;                 // expected digest of a URL download (hex)
  std::string cache_dir;              // default: $XDG_CACHE_HOME/wafer/models
  bool list = false;                  // print the catalogue of short names
  bool with_draft = false;            // pull: also the catalogue model that drafts for NAME

  // bench (also --model, --threads, --context, --seed, --max-tokens, --debounce-ms, --json)
  std::string trace_file;             // recorded JSON-lines trace instead of synthesizing one
  std::string save_trace;             // write the trace that is replayed to this file
  int keystrokes = 300;               // synthesized trace length
  int start_line = 0;                 // where typing starts (1-based; 0: middle of the file)
  double wpm = 50;                    // typing speed, words (5 characters) per minute
  double typo_rate = 0.03;            // chance that a letter is mistyped and fixed
  double accept = 0.7;                // chance that a matching suggestion is accepted (Tab)
  int warmup = 1;                     // invoked requests before the clock starts
  int drain_ms = 15000;               // wait this long for answers after the last keystroke
  bool no_stream = false;             // do not ask for streamed partial results
  std::string out_file;               // JSON report
  std::string html_file;              // HTML report
  std::vector<std::string> targets;   // more targets to compare: wafer, lsp:CMD, llamacpp:URL, openai:URL
  std::string url;                    // bench infill: the endpoint's base URL
  std::string api = "llamacpp";       // bench infill: llamacpp (/infill) or openai (/v1/completions)
  std::string api_model;              // bench infill --api openai: the "model" field
  // A custom FIM prompt for OpenAI-compatible servers (lsp --backend openai, bench infill
  // --api openai): {extra}, {prefix}, {suffix} replaced; empty: the --fim-format family's
  // own (server/backends/remote_prompt.h).
  std::string prompt_template;
};

// Parses argv. Errors name the offending argument. `--help`/`--version` anywhere set the
// flags without requiring the rest to be valid.
Result<Options> parse_options(int argc, const char* const* argv);

// The text printed by `wafer --help` (command empty) or `wafer COMMAND --help`; for
// "settings" (`wafer help settings`), the README's table of settings (settings_markdown()).
std::string usage(const std::string& command);

// Whether completion is enabled for a languageId (the `languages` setting; empty: all).
bool language_enabled(const Options& o, std::string_view language_id);

}  // namespace wafer
