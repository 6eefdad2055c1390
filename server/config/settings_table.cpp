// The rows of the settings table (settings_table.h), and engine_options() beside them.
#include "server/config/settings_table.h"

#include <charconv>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "engine/engine.h"

namespace wafer {
namespace {

using enum SettingKind;

Status parse_copy_strength(Options& o, std::string_view v) {
  if (v == "auto") return o.copy_strength = -1, Status{};
  if (v == "off") return o.copy_strength = 0, Status{};
  return read_flag_double("--copy-strength", v, o.copy_strength, 0, 1000);
}

Status parse_min_confidence(Options& o, std::string_view v) {
  if (v == "auto") return o.min_confidence = -1, Status{};
  return read_flag_double("--min-confidence", v, o.min_confidence, 0, 1);
}

Status parse_temp(Options& o, std::string_view v) {
  std::string s(v);
  char* end = nullptr;
  float t = std::strtof(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !(t >= 0) || t > 100)
    return make_error("--temp: expected a number >= 0, got '" + s + "'");
  o.temperature = t;
  return {};
}

Status parse_seed(Options& o, std::string_view v) {
  unsigned long long seed = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), seed);
  if (ec != std::errc() || p != v.data() + v.size())
    return make_error("--seed: expected a number from 0 to " + std::to_string(~0ULL) + ", got '" +
                      std::string(v) + "'");
  o.seed = seed;
  return {};
}

Status parse_api(Options& o, std::string_view v) {
  if (v != "llamacpp" && v != "openai") return make_error("--api: expected llamacpp or openai");
  o.api = v;
  return {};
}

// The table. `--help` lists a command's flags in this order; the README's table of
// settings lists the rows `wafer lsp` accepts or that have an LSP key, in this order.
const std::vector<Setting> kTable = {
    {.flag = "--model", .key = "model", .commands = "lsp complete generate info tokenize bench", .kind = String,
     .field = &Options::model, .reload = Reload::Engine, .metavar = "PATH|NAME", .def = "see below",
     .help = "GGUF model file (`~` and `$VAR` expanded) or the name of a catalogue model `wafer pull` downloaded; "
             "`wafer lsp` needs a code model with fill-in-the-middle tokens. Unset: the largest catalogue model "
             "already pulled, else the bundled model"},
    {.flag = "--draft-model", .key = "draftModel", .commands = "lsp complete bench", .kind = String,
     .field = &Options::draft_model, .reload = Reload::Engine, .metavar = "PATH|NAME|none",
     .def = "see below",
     .help = "a small model of the same vocabulary as the model (e.g. Qwen2.5-Coder-0.5B for 1.5B or 7B) that "
             "drafts tokens for the model to verify in one pass: faster greedy suggestions when they agree, the "
             "same text always (drafting pauses, but for one step in eight, while they do not); a path or a "
             "catalogue name, as `model`. Unset: the catalogue's draft for the model when the model is a "
             "catalogue model and its draft was pulled too (`wafer pull NAME --with-draft`), else none; `none`: "
             "prompt-lookup drafts only"},
    {.flag = "--draft-quant", .key = "draftQuant", .commands = "lsp complete bench", .kind = Choice,
     .field = &Options::draft_quant, .choices = "q5_0 q4_0 keep", .reload = Reload::Engine, .metavar = "Q",
     .def = "q5_0",
     .help = "the draft model's weights: `q5_0` or `q4_0` reads its matrices stored with more bits (Q8_0, F16, "
             "Q6_K) as that type, requantized when it loads (under a second for the 0.5B model): a Q8_0 draft then "
             "costs about two thirds (`q5_0`) or a little over half (`q4_0`) of its time, and proposes what it "
             "would as stored at most tokens (`q4_0` at fewer); `keep` uses them as stored"},
    {.flag = "--draft-vocab", .key = "draftVocab", .commands = "lsp complete bench", .kind = Int,
     .field = &Options::draft_vocab, .lo = 0, .hi = 1 << 24, .reload = Reload::Engine, .metavar = "N",
     .def = "32768",
     .help = "the draft model scores only the token ids below N and those of the prompt and the text so far, "
             "and proposes only those: with Qwen2's vocabulary (ids in merge order) that is about 97 % of the "
             "tokens of source code for under a quarter of its output layer, a fifth of the 0.5B model's time "
             "per token; the model verifies every draft either way. 0: every id"},
    {.flag = "--threads", .key = "threads", .commands = "lsp complete generate bench info", .kind = Int,
     .field = &Options::threads, .lo = 0, .hi = 1024, .reload = Reload::Engine, .metavar = "N",
     .def = "0: one per core",
     .help = "compute threads (one per physical core; each owns an equal, fixed slice of every matrix, so every "
             "step waits for the slowest: on a CPU with performance and efficiency cores, e.g. Intel 12th–14th "
             "generation laptops, try the number of performance cores)"},
    {.flag = "--context", .key = "contextLength", .commands = "lsp complete generate bench", .kind = Int,
     .field = &Options::context, .lo = 16, .hi = 1 << 20, .reload = Reload::Engine, .metavar = "N",
     .def = "4096", .help = "context length: the KV cache's size in tokens"},
    {.flag = "--kv-type", .key = "kvType", .commands = "lsp generate bench", .kind = Choice,
     .field = &Options::kv_type, .check = check_kv_type, .reload = Reload::Engine, .metavar = "T", .def = "f16",
     .help = "KV cache elements: `f16` (IEEE half, llama.cpp's default: half the memory — 48 MiB instead of 96 MiB "
             "for Qwen2.5-Coder-0.5B at 4096 tokens — and fewer bytes read per token deep in a context), `f32` "
             "(exact) or `q8_0` (8-bit keys as llama.cpp's `--cache-type-k q8_0` stores them, half values: 37.5 "
             "MiB, and attention scores keys with int8 dot products, faster deep in a context at some accuracy; "
             "needs a key head size that is a multiple of 32). After a load the log says what was chosen, e.g. `kernels avx512-vnni, 2 "
             "threads` and `KV cache q8_0: up to 4 sessions of 4096 tokens, 37.5 MiB each`"},
    {.flag = "--chunk-reuse", .key = "chunkReuse", .commands = "lsp bench", .kind = Int, .field = &Options::chunk_reuse,
     .lo = 0, .hi = 1 << 20, .reload = Reload::Engine, .metavar = "N", .def = "32",
     .help = "reuse cached spans of at least N tokens that moved (the suffix after a keystroke) instead of "
             "recomputing them: a keystroke prefills a few tokens instead of the whole suffix, approximate "
             "(see [Completion engine](#completion-engine)); 0: off, every keystroke exact"},
    {.flag = "--copy-strength", .key = "copyStrength", .commands = "lsp", .kind = Double,
     .field = &Options::copy_strength, .lo = -1, .hi = 1000, .parse_flag = parse_copy_strength,
     .reload = Reload::Engine, .metavar = "C", .def = "auto",
     .help = "the copy predictor mixed into the network's predictions (see [Completion "
             "engine](#completion-engine)): `auto` (setting: -1) uses the model file's `wafer.copy_strength` (only "
             "the bundled wafer-tiny-code has one), `off` (0) turns it off, a number C > 0 sets it: after a repeat "
             "of the last L tokens it weighs L/(L+C)"},
    {.flag = "--fim-format", .key = "fimFormat", .commands = "lsp bench", .kind = Choice,
     .field = &Options::fim_format, .check = check_fim_format, .reload = Reload::Engine, .metavar = "NAME",
     .def = "auto",
     .help = "the prompt format: `auto` (from the model's FIM tokens), `qwen`, `starcoder`, `deepseek`, "
             "`codellama`, `codegemma` or `generic`, each optionally with `-spm` (suffix first: a keystroke reuses "
             "the whole cached prompt; see [FIM prompt formats](#fim-prompt-formats))"},
    {.flag = "--token-healing", .key = "tokenHealing", .commands = "lsp bench", .kind = OnOff,
     .field = &Options::token_healing, .reload = Reload::Engine, .def = "on",
     .help = "token healing: the last token before the cursor is taken off the prompt and the model writes it "
             "again, so a cursor inside a word (`retu`) or after indentation continues the word as the model would "
             "have written it; the suggestion never repeats what is typed (see [Token healing](#token-healing))"},
    {.flag = "--debounce-ms", .key = "debounceMs", .commands = "lsp bench", .kind = Int,
     .field = &Options::debounce_ms, .lo = 0, .hi = 10000, .metavar = "N", .def = "75",
     .help = "wait this long after the last keystroke before starting the engine, or less: the wait ends when "
             "the early prefill has computed the request's prompt; an explicitly invoked request (`triggerKind` 1) "
             "does not wait"},
    {.flag = "--latency-budget-ms", .key = "latencyBudgetMs", .commands = "lsp bench", .kind = Int,
     .field = &Options::latency_budget_ms, .lo = 0, .hi = 60000, .metavar = "N", .def = "300",
     .help = "while typing, the first token of a suggestion within this long after the engine starts it: when the "
             "part of the prompt not already cached would take longer to prefill (by the engine's own measured "
             "speed), the suffix is cut, whole lines from its end, to fit; 0: off; an invoked request has no budget"},
    {.flag = "--typing-budget", .key = "typingBudget", .commands = "lsp bench", .kind = OnOff,
     .field = &Options::typing_budget, .def = "on",
     .help = "while you type, the latency budget is also at most half the typical time between your keystrokes "
             "(the median of the last 8 gaps under 1.5 s; at least 100 ms), so a suggestion shows before the next "
             "keystroke; the rest of the cursor's line always stays in the prompt"},
    {.flag = "--max-tokens", .key = "maxTokens", .commands = "lsp complete bench", .kind = Int, .field = &Options::max_tokens,
     .lo = 1, .hi = 4096, .metavar = "N", .def = "64", .help = "longest suggestion in tokens"},
    {.flag = "--prefix-lines", .key = "prefixLines", .commands = "lsp bench", .kind = Int,
     .field = &Options::prefix_lines, .lo = 0, .hi = 100000, .metavar = "N", .def = "60",
     .help = "lines before the cursor sent to the model, at most"},
    {.flag = "--suffix-lines", .key = "suffixLines", .commands = "lsp bench", .kind = Int,
     .field = &Options::suffix_lines, .lo = 0, .hi = 100000, .metavar = "N", .def = "20",
     .help = "lines after the cursor sent to the model, at most"},
    {.flag = "--prefix-tokens", .key = "prefixTokens", .commands = "lsp", .kind = Int,
     .field = &Options::prefix_tokens, .lo = 0, .hi = 1 << 20, .metavar = "N", .def = "1024",
     .help = "prefix budget in tokens (estimated; within ~15% of Qwen2's count)"},
    {.flag = "--suffix-tokens", .key = "suffixTokens", .commands = "lsp", .kind = Int,
     .field = &Options::suffix_tokens, .lo = 0, .hi = 1 << 20, .metavar = "N", .def = "256",
     .help = "suffix budget in tokens"},
    {.flag = "--prefix-step-lines", .key = "prefixStepLines", .commands = "lsp", .kind = Int,
     .field = &Options::prefix_step_lines, .lo = 1, .hi = 100000, .metavar = "N", .def = "16",
     .help = "the prefix starts on a line number that is a multiple of N, so it stays put while you type and the "
             "model's cache keeps matching"},
    {.flag = "--extra-tokens", .key = "extraTokens", .commands = "lsp", .kind = Int,
     .field = &Options::extra_tokens, .lo = 0, .hi = 1 << 20, .metavar = "N", .def = "512",
     .help = "budget for definitions from other open files and from beyond the window (0: none)"},
    {.flag = "--recent-tokens", .key = "recentTokens", .commands = "lsp", .kind = Int,
     .field = &Options::recent_tokens, .lo = 0, .hi = 1 << 20, .metavar = "N", .def = "256",
     .help = "budget for the places you recently edited elsewhere (in this file or others): up to 8 chunks of at "
             "most 32 lines and 4 KiB, the newest first into the budget, shown before the current file; a place "
             "joins them when you start editing more than 24 lines away or in another file, text you yank "
             "(`wafer/yank`) at once (0: none)"},
    {.flag = "--open-buffers", .key = "openBuffers", .commands = "lsp", .kind = OnOff,
     .field = &Options::open_buffers, .def = "on",
     .help = "show definitions from the other open files (of related languages) for names used near the cursor "
             "in the prompt (within `extraTokens`); off leaves them out, while the workspace index "
             "(`workspaceIndex`) and recent edits (`recentTokens`) keep their own settings"},
    {.flag = "--workspace-index", .key = "workspaceIndex", .commands = "lsp", .kind = OnOff,
     .field = &Options::workspace_index, .def = "on",
     .help = "index the definitions of every file of a supported language in the workspace folder, open or not, "
             "and show those of names used near the cursor in the prompt (within `extraTokens`); the folder is "
             "the client's workspace folder, else the repository (the folder holding `.git`) of the first file "
             "opened. Follows `.gitignore`, skips files over 256 KiB, and is built in the background (see "
             "Workspace index below)"},
    {.flag = "--index-max-files", .key = "indexMaxFiles", .commands = "lsp", .kind = Int,
     .field = &Options::index_max_files, .lo = 1, .hi = 1000000, .metavar = "N", .def = "5000",
     .help = "the workspace index stops after N files (at most `--max-index-files`)"},
    {.flag = "--exclude", .key = "exclude", .commands = "lsp info", .kind = List, .field = &Options::exclude,
     .metavar = "PATTERN,...", .def = "none",
     .help = "files kept out of every prompt, in `.gitignore` syntax, besides the built-in list of secret-bearing "
             "files and the `.waferignore` files: never indexed, never extra context, never sent to a remote "
             "backend; `!PATTERN` takes a file of the built-in list back (see [Content "
             "exclusion](#content-exclusion); the flag: comma-separated)"},
    {.flag = "--complete-excluded-files", .key = "completeExcludedFiles", .commands = "lsp", .kind = OnOff,
     .field = &Options::complete_excluded_files, .def = "on",
     .help = "an excluded file open in the editor gets suggestions from the local engine, from its own text "
             "only; off: none. A remote backend never completes in one"},
    {.flag = "--alternatives", .key = "alternatives", .commands = "lsp", .kind = Int,
     .field = &Options::alternatives, .lo = 1, .hi = 10, .metavar = "N", .def = "3",
     .help = "suggestions returned for an explicitly invoked inline request (`triggerKind` 1): the greedy one, "
             "then sampled ones, distinct (1–10; 1: greedy only). Automatic requests always get one"},
    {.flag = "--alternatives-temperature", .key = "alternativesTemperature", .commands = "lsp", .kind = Double,
     .field = &Options::alternatives_temperature, .lo = 0.01, .hi = 2.0, .metavar = "T", .def = "0.7",
     .help = "sampling temperature of the alternatives (0.01–2)"},
    {.flag = "--alternatives-top-p", .key = "alternativesTopP", .commands = "lsp", .kind = Double,
     .field = &Options::alternatives_top_p, .lo = 0.01, .hi = 1.0, .metavar = "P", .def = "0.95",
     .help = "nucleus (top-p) cut of the alternatives' sampling (0.01–1)"},
    {.flag = "--ahead-tokens", .key = "aheadTokens", .commands = "lsp", .kind = Int,
     .field = &Options::ahead_tokens, .lo = 0, .hi = 4096, .metavar = "N", .def = "48",
     .help = "after answering, decode up to N tokens of what comes once the suggestion is accepted, while the "
             "engine is idle, so the request after an accept is answered at once (0: off; see Ahead of the cursor "
             "below)"},
    {.flag = "--min-confidence", .key = "minConfidence", .commands = "lsp bench", .kind = Double,
     .field = &Options::min_confidence, .lo = -1, .hi = 1, .parse_flag = parse_min_confidence, .metavar = "P",
     .def = "auto",
     .help = "an automatic request shows no suggestion when the model's confidence in its first line (the "
             "probability of the least likely token it chose there) is below P; an invoked request "
             "(`triggerKind` 1) shows its best anyway (0: off; remote backends report no confidence and are not "
             "gated). `auto` (setting: -1) uses the threshold calibrated for the model, which its file carries "
             "as `wafer.min_confidence` (the bundled model's is 0.35), else 0.3"},
    {.key = "windowBytes", .kind = Int, .field = &Options::window_bytes, .lo = 256, .hi = 1 << 24,
     .def = "16384", .help = "byte cap on each of prefix and suffix"},
    {.flag = "--amx", .key = "amx", .commands = "lsp generate bench", .kind = OnOff, .field = &Options::amx,
     .reload = Reload::Engine, .def = "on",
     .help = "use AMX tiles for the prefill matmuls of Q8_0, Q4_0 and Q5_0 weights where the CPU has them (Intel "
             "Xeon 4th generation, Sapphire Rapids, and later; see [AMX](#engine-speed)): Linux is asked for the "
             "tile state and the tile kernel must give the AVX-512 kernel's results bit for bit on a test matrix "
             "before it is used. Where the CPU also has AMX-BF16, a prefill's attention runs on the tiles too, to "
             "FP32 precision (checked against attention in double precision first). `off` keeps to the AVX-512 "
             "VNNI kernels and never touches AMX. On a CPU with AMX the log says when it is not used and why, e.g. "
             "`kernels avx512-vnni, 2 threads (AMX: off by --amx off)`; in use it reads `kernels avx512-vnni+amx, 2 "
             "threads, prefill attention on BF16 tiles`"},
    {.flag = "--amx-bf16", .key = "amxBf16", .commands = "lsp generate bench", .kind = OnOff,
     .field = &Options::amx_bf16, .reload = Reload::Engine, .def = "off",
     .help = "with `--amx on`, compute prefills of 32 tokens or more with BF16 tiles where the CPU has AMX-BF16: "
             "about 1.3x the prefill speed of the int8 tiles, but each weight and activation is rounded to 8 "
             "significant bits, so results are close to (within 2^-7 of the sum of |weight x activation| per "
             "output), not the same as, llama.cpp's and the other kernels'. A check on a test matrix must find "
             "them within that bound before they are used; the log then reads `kernels avx512-vnni+amx-bf16`, "
             "else it says why not, e.g. `(BF16 tiles: not on this CPU)`"},
    {.flag = "--mlock", .key = "mlock", .commands = "lsp", .kind = OnOff, .field = &Options::mlock,
     .reload = Reload::Engine, .def = "off",
     .help = "lock the weights a forward pass reads (repacked matrices, token embeddings) in RAM with `mlock`, so "
             "an idle editor's model is never paged out; the log says how much was locked, and a refusal (e.g. "
             "`RLIMIT_MEMLOCK` too low for a non-root user: raise it with `ulimit -l` or `LimitMEMLOCK=`) is a "
             "warning message and the model still loads"},
    {.flag = "--early-prefill", .key = "earlyPrefill", .commands = "lsp bench", .kind = OnOff,
     .field = &Options::early_prefill, .def = "on",
     .help = "after a keystroke, prefill the prompt of its completion request at once, during the debounce; "
             "when it is done the debounce ends and the first token comes without another forward pass (see Early "
             "prefill below)"},
    {.flag = "--warm", .key = "warm", .commands = "lsp", .kind = OnOff, .field = &Options::warm, .def = "on",
     .help = "prefill the prompt at the position a `wafer/warm` notification names while the engine is idle (see "
             "Warm-up below)"},
    {.flag = "--languages", .key = "enabledLanguages", .commands = "lsp", .kind = List,
     .field = &Options::languages, .metavar = "a,b", .def = "all",
     .help = "complete only these languageIds (the flag: comma-separated)"},
    {.flag = "--listen", .commands = "lsp", .kind = String, .field = &Options::listen, .implicit = kListenLocal,
     .metavar = "PATH|HOST:PORT", .def = "stdio",
     .help = "serve one client on a socket instead of stdio (see [Listening on a socket](#listening-on-a-socket)): "
             "alone, a Unix-domain socket `wafer/lsp.sock` in `$XDG_RUNTIME_DIR`, else `wafer/run/lsp.sock` in the "
             "cache folder (a named pipe `\\\\.\\pipe\\wafer-lsp-USERNAME` on Windows); a PATH (with a `/`) names the "
             "socket, whose folder must be yours and closed to others; HOST:PORT listens on loopback TCP instead"},
    {.flag = "--stdio", .commands = "lsp", .kind = Switch, .field = &Options::listen,
     .parse_flag = [](Options& o, std::string_view) { return o.listen.clear(), Status{}; },
     .help = "serve LSP over standard input/output (the default; accepted because LSP clients such as "
             "vscode-languageclient append it)"},
    {.flag = "--allow-remote", .commands = "lsp", .kind = Switch, .field = &Options::allow_remote, .def = "off",
     .help = "allow `--listen` on a non-loopback address"},
    {.flag = "--allow-root", .commands = "lsp", .kind = Custom, .field = &Options::allow_roots,
     .parse_flag = [](Options& o, std::string_view v) { return o.allow_roots.emplace_back(v), Status{}; },
     .metavar = "DIR", .def = "home with --listen",
     .help = "a folder a client's workspace may be in (repeatable): a client whose `initialize` or "
             "`workspace/didChangeWorkspaceFolders` names a folder outside every one (symbolic links and `..` "
             "resolved) is refused, and no document outside them is indexed. `/` is never allowed. Unset: the "
             "home folder with `--listen`, no limit on stdio ""(see [Allowed workspace roots](#allowed-workspace-roots))"},
    {.flag = "--token-file", .commands = "lsp", .kind = String, .field = &Options::token_file, .metavar = "PATH",
     .def = "a fresh token",
     .help = "with `--listen`: the file holding the token a client must send first (see [Listening on a "
             "socket](#listening-on-a-socket)); refused when others may read it (POSIX). Unset: a random token is written "
             "to `wafer/lsp-PID.token` in the cache folder, readable only by you, its path printed on stderr and "
             "the file removed at exit"},
    {.flag = "--token-timeout-ms", .commands = "lsp", .kind = Int, .field = &Options::token_timeout_ms, .lo = 1,
     .hi = 600000, .metavar = "N", .def = "5000",
     .help = "with `--listen`: a client that has not sent its token line within this long is refused"},
    {.flag = "--max-message-mib", .commands = "lsp", .kind = Int, .field = &Options::max_message_mib, .lo = 1,
     .hi = 2047, .metavar = "N", .def = "64",
     .help = "the largest LSP message a client may send, in MiB: a larger `Content-Length` is answered with a "
             "parse error and its body skipped unread (see [Limits per client](#limits-per-client))"},
    {.flag = "--max-open-documents", .commands = "lsp", .kind = Int, .field = &Options::max_open_documents, .lo = 1,
     .hi = 1000000, .metavar = "N", .def = "1000",
     .help = "documents a client may keep open; a `didOpen` past it is refused with an error message"},
    {.flag = "--max-document-mib", .commands = "lsp", .kind = Int, .field = &Options::max_document_mib, .lo = 1,
     .hi = 65536, .metavar = "N", .def = "256",
     .help = "the texts of a client's open documents together, in MiB; a `didOpen` or `didChange` past it is "
             "refused with an error message"},
    {.flag = "--max-pending-requests", .commands = "lsp", .kind = Int, .field = &Options::max_pending_requests,
     .lo = 1, .hi = 100000, .metavar = "N", .def = "64",
     .help = "requests a client may have unanswered at once; one more is answered at once with an error"},
    {.flag = "--max-index-files", .commands = "lsp", .kind = Int, .field = &Options::max_index_files, .lo = 1,
     .hi = 1000000, .metavar = "N", .def = "20000",
     .help = "the files a client's workspace index may hold, whatever `indexMaxFiles` asks; past it no file is "
             "added, the log says so once and `wafer/stats` counts the files left out (`limit_skipped`)"},
    {.flag = "--max-index-mib", .commands = "lsp", .kind = Int, .field = &Options::max_index_mib, .lo = 1,
     .hi = 65536, .metavar = "N", .def = "64",
     .help = "the source a client's workspace index may read, in MiB; past it as for `--max-index-files`"},
    {.flag = "--log-file", .commands = "lsp", .kind = String, .field = &Options::log_file, .metavar = "PATH",
     .def = "stderr", .help = "append the daemon's log to PATH"},
    {.flag = "--fake-engine", .commands = "lsp bench", .kind = String, .field = &Options::fake_engine,
     .reload = Reload::Backend, .metavar = "SCRIPT",
     .help = "for wafer's own tests: a scripted engine (`tests/support/fixtures/fake_engine.h`) instead of a "
             "model; only `wafer-scripted` (built beside the tests) has it, the installed `wafer` says so and "
             "loads nothing"},
    {.flag = "--backend", .key = "backend", .commands = "lsp bench", .kind = Choice, .field = &Options::backend,
     .choices = "local llama-server openai", .reload = Reload::Backend, .metavar = "B", .def = "local",
     .help = "where completions come from: `local` (the in-process engine, `--model`), `llama-server` (POST "
             "/infill) or `openai` (POST /v1/completions with a FIM prompt) (see [Remote "
             "backends](#remote-backends))"},
    {.flag = "--backend-url", .key = "backendUrl", .commands = "lsp bench", .kind = String,
     .field = &Options::backend_url, .reload = Reload::Backend, .metavar = "URL", .def = "none",
     .help = "the remote server's base URL (`http://` or `https://`), e.g. `http://gpu-box:8080`; `/infill` or "
             "`/v1/completions` is added unless the URL ends with one"},
    {.flag = "--backend-model", .key = "backendModel", .commands = "lsp bench", .kind = String,
     .field = &Options::backend_model, .reload = Reload::Backend, .metavar = "NAME", .def = "none",
     .help = "`openai`: the `model` field of each request"},
    {.flag = "--api-key-env", .key = "apiKeyEnv", .commands = "lsp bench", .kind = String,
     .field = &Options::api_key_env, .reload = Reload::Backend, .metavar = "VAR", .def = "none",
     .help = "read the API key (sent as `Authorization: Bearer`) from this environment variable"},
    {.flag = "--api-key-file", .key = "apiKeyFile", .commands = "lsp bench", .kind = String,
     .field = &Options::api_key_file, .reload = Reload::Backend, .metavar = "PATH", .def = "none",
     .help = "read the API key from this file (trailing whitespace dropped)"},
    {.flag = "--backend-timeout-ms", .key = "backendTimeoutMs", .commands = "lsp bench", .kind = Int,
     .field = &Options::backend_timeout_ms, .lo = 100, .hi = 600000, .reload = Reload::Backend, .metavar = "N",
     .def = "10000", .help = "give up on one remote request after this long"},
    {.flag = "--fim-template", .key = "fimTemplate", .commands = "lsp bench", .kind = String,
     .field = &Options::prompt_template, .reload = Reload::Backend, .metavar = "T", .def = "none",
     .help = "`openai` (and `wafer bench infill --api openai`): a custom prompt text, `{extra}`, `{prefix}`, "
             "`{suffix}` replaced, instead of the `fimFormat` family's (for `auto`: Qwen2.5-Coder's)"},

    // Flags of the other subcommands.
    {.flag = "--ids", .commands = "tokenize", .kind = Switch, .field = &Options::ids,
     .help = "print token ids on one line, separated by spaces"},
    {.flag = "--pieces", .commands = "tokenize", .kind = Switch, .field = &Options::pieces,
     .help = "print one token per line: id and piece"},
    {.flag = "--special", .commands = "tokenize", .kind = Switch, .field = &Options::special,
     .help = "recognise special tokens written in the text (e.g. `<|fim_prefix|>`)"},
    {.flag = "--json", .commands = "complete info bench", .kind = Switch, .field = &Options::json,
     .help = "machine-readable output"},
    {.flag = "--residency", .commands = "info", .kind = Switch, .field = &Options::residency,
     .help = "also measure read bandwidth and report the decode ceiling (bytes per token, caches)"},
    {.flag = "--workspace", .commands = "info", .kind = String, .field = &Options::workspace, .metavar = "DIR",
     .help = "list the files of DIR the content exclusion keeps out of prompts, each with the rule that excludes "
             "it (built-in, a `.waferignore`, `--exclude`), instead of describing a model"},
    {.flag = "--prompt", .commands = "generate", .kind = String, .field = &Options::prompt, .metavar = "TEXT",
     .help = "prompt text"},
    {.flag = "--prompt-ids", .commands = "generate", .kind = String, .field = &Options::prompt_ids,
     .metavar = "IDS", .help = "prompt as comma-separated token ids"},
    {.flag = "-n", .commands = "generate", .kind = Int, .field = &Options::n_predict, .lo = 0, .hi = 1 << 20,
     .metavar = "N", .def = "64", .help = "tokens to generate"},
    {.flag = "--temp", .commands = "generate", .kind = Custom, .field = &Options::temperature,
     .parse_flag = parse_temp, .metavar = "T", .def = "0: greedy", .help = "sampling temperature"},
    {.flag = "--seed", .commands = "generate bench", .kind = Custom, .field = &Options::seed,
     .parse_flag = parse_seed, .metavar = "S", .def = "0", .help = "random seed"},
    {.flag = "--logits-json", .commands = "generate", .kind = String, .field = &Options::logits_json,
     .metavar = "FILE", .help = "write per-position top-20 logits and the greedy tokens to FILE"},
    {.flag = "--sha256", .commands = "pull", .kind = String, .field = &Options::sha256, .metavar = "HEX",
     .help = "expected SHA-256 of the file (hex); catalogue models have theirs built in"},
    {.flag = "--cache-dir", .commands = "pull", .kind = String, .field = &Options::cache_dir, .metavar = "DIR",
     .def = "$XDG_CACHE_HOME/wafer/models or ~/.cache/wafer/models (macOS: ~/Library/Caches/wafer/models)", .help = "download into DIR"},
    {.flag = "--list", .commands = "pull", .kind = Switch, .field = &Options::list,
     .help = "list the models known by short name, with sizes, licenses and the model that drafts for each"},
    {.flag = "--with-draft", .commands = "pull", .kind = Switch, .field = &Options::with_draft,
     .help = "also download the catalogue model that drafts for NAME (used with NAME by itself while "
             "`draftModel` is unset; its path is the second line printed)"},
    {.flag = "--trace", .commands = "bench", .kind = String, .field = &Options::trace_file, .metavar = "FILE",
     .help = "replay a recorded JSON-lines trace instead of synthesizing one"},
    {.flag = "--save-trace", .commands = "bench", .kind = String, .field = &Options::save_trace,
     .metavar = "FILE", .help = "write the replayed trace to FILE (JSON lines)"},
    {.flag = "--keystrokes", .commands = "bench", .kind = Int, .field = &Options::keystrokes, .lo = 1,
     .hi = 1000000, .metavar = "N", .def = "300", .help = "keystrokes in the synthesized trace"},
    {.flag = "--start-line", .commands = "bench", .kind = Int, .field = &Options::start_line, .lo = 0,
     .hi = 100000000, .metavar = "N", .def = "0: the middle of the file",
     .help = "line where typing starts, 1-based"},
    {.flag = "--wpm", .commands = "bench", .kind = Double, .field = &Options::wpm, .lo = 1, .hi = 10000,
     .metavar = "W", .def = "50", .help = "typing speed in words (5 characters) per minute"},
    {.flag = "--typo-rate", .commands = "bench", .kind = Double, .field = &Options::typo_rate, .lo = 0, .hi = 1,
     .metavar = "P", .def = "0.03", .help = "chance that a letter is mistyped, then fixed with backspace"},
    {.flag = "--accept", .commands = "bench", .kind = Double, .field = &Options::accept, .lo = 0, .hi = 1,
     .metavar = "P", .def = "0.7", .help = "chance that the user accepts a suggestion that matches what comes next"},
    {.flag = "--warmup", .commands = "bench", .kind = Int, .field = &Options::warmup, .lo = 0, .hi = 1000,
     .metavar = "N", .def = "1",
     .help = "invoked requests answered before the clock starts, e.g. while the model loads"},
    {.flag = "--drain-ms", .commands = "bench", .kind = Int, .field = &Options::drain_ms, .lo = 0, .hi = 3600000,
     .metavar = "N", .def = "15000", .help = "after the last keystroke, wait this long for outstanding answers"},
    {.flag = "--no-stream", .commands = "bench", .kind = Switch, .field = &Options::no_stream,
     .help = "do not ask for streamed partial results"},
    {.flag = "--out", .commands = "bench", .kind = String, .field = &Options::out_file, .metavar = "FILE",
     .help = "write the JSON report to FILE"},
    {.flag = "--html", .commands = "bench", .kind = String, .field = &Options::html_file, .metavar = "FILE",
     .help = "write a self-contained HTML report (histogram, latency over time) to FILE"},
    {.flag = "--target", .commands = "bench", .kind = Custom, .field = &Options::targets,
     .parse_flag = [](Options& o, std::string_view v) { return o.targets.emplace_back(v), Status{}; },
     .metavar = "T",
     .help = "another target on the same trace (repeatable): `wafer`, `lsp:COMMAND`, `llamacpp:URL`, "
             "`openai:URL`"},
    {.flag = "--url", .commands = "bench", .kind = String, .field = &Options::url, .metavar = "URL",
     .help = "bench infill: the endpoint's base URL, e.g. `http://127.0.0.1:8080`"},
    {.flag = "--api", .commands = "bench", .kind = Custom, .field = &Options::api, .parse_flag = parse_api,
     .metavar = "API", .def = "llamacpp",
     .help = "bench infill: `llamacpp` (POST /infill) or `openai` (POST /v1/completions with a FIM prompt)"},
    {.flag = "--api-model", .commands = "bench", .kind = String, .field = &Options::api_model,
     .metavar = "NAME", .help = "bench infill `--api openai`: the `model` field"},
};

}  // namespace

const std::vector<Setting>& settings_table() { return kTable; }

bool in_word_list(std::string_view words, std::string_view word) {
  while (!words.empty()) {
    size_t sp = words.find(' ');
    if (words.substr(0, sp) == word) return true;
    if (sp == std::string_view::npos) break;
    words.remove_prefix(sp + 1);
  }
  return false;
}

std::string word_list_text(std::string_view words, std::string_view quote) {
  std::string out;
  while (!words.empty()) {
    size_t sp = words.find(' ');
    if (!out.empty()) out += sp == std::string_view::npos ? " or " : ", ";
    out += std::string(quote) + std::string(words.substr(0, sp)) + std::string(quote);
    if (sp == std::string_view::npos) break;
    words.remove_prefix(sp + 1);
  }
  return out;
}

bool accepts(const Setting& s, std::string_view command) { return in_word_list(s.commands, command); }

bool takes_value(const Setting& s) { return s.kind != SettingKind::Switch; }

bool same_value(const Setting& s, const Options& a, const Options& b) {
  return std::visit(
      [&](auto member) {
        if constexpr (std::is_same_v<decltype(member), std::monostate>) return true;
        else return a.*member == b.*member;
      },
      s.field);
}

// The rows marked Reload::Engine, and nothing else (a test changes each row's field and
// checks that this output changes exactly for those rows).
EngineOptions engine_options(const Options& o) {
  EngineOptions e;
  e.model_path = o.model;
  e.draft_model_path = o.draft_model;
  e.draft_quant = o.draft_quant;
  e.draft_vocab = o.draft_vocab;
  e.threads = o.threads;
  e.context_length = o.context;
  e.kv_type = o.kv_type;
  e.chunk_reuse_min = o.chunk_reuse;
  e.fim_format = o.fim_format;
  e.copy_strength = static_cast<float>(o.copy_strength);
  e.token_healing = o.token_healing;
  e.lock_memory = o.mlock;
  e.amx = o.amx;
  e.amx_bf16 = o.amx_bf16;
  return e;
}

bool engine_changed(const Options& a, const Options& b) {
  for (const Setting& s : kTable)
    if (s.reload != Reload::None && !same_value(s, a, b)) return true;
  return false;
}

}  // namespace wafer
