#include "server/config/options.h"

#include <array>
#include <charconv>
#include <cstring>
#include <functional>
#include <string_view>

#include "engine/engine.h"

namespace wafer {
namespace {

constexpr std::array<std::string_view, 7> kCommands{"lsp", "tokenize", "generate", "info", "bench",
                                                    "pull", "help"};

// One row per flag: name, the subcommands that accept it ("*" for all), whether it takes
// a value, and how to store it. Adding an option is adding a row here and a field above.
struct Flag {
  std::string_view name;
  std::string_view commands;  // space-separated
  bool takes_value;
  std::function<Status(Options&, std::string_view)> set;
  std::string_view help;
};

template <typename T>
Status parse_number(std::string_view flag, std::string_view text, T& out, T lo, T hi) {
  T v{};
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v < lo || v > hi)
    return make_error(std::string(flag) + ": expected a number from " + std::to_string(lo) +
                      " to " + std::to_string(hi) + ", got '" + std::string(text) + "'");
  out = v;
  return {};
}

Status parse_float(std::string_view flag, std::string_view text, float& out) {
  std::string s(text);
  char* end = nullptr;
  float v = std::strtof(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !(v >= 0) || v > 100)
    return make_error(std::string(flag) + ": expected a number >= 0, got '" + s + "'");
  out = v;
  return {};
}

Status parse_double(std::string_view flag, std::string_view text, double& out, double lo, double hi) {
  std::string s(text);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !(v >= lo && v <= hi))
    return make_error(std::string(flag) + ": expected a number from " + std::to_string(lo) + " to " +
                      std::to_string(hi) + ", got '" + s + "'");
  out = v;
  return {};
}

Status parse_on_off(std::string_view flag, std::string_view text, bool& out) {
  if (text != "on" && text != "off")
    return make_error(std::string(flag) + ": expected on or off, got '" + std::string(text) + "'");
  out = text == "on";
  return {};
}

const std::vector<Flag>& flags() {
  static const std::vector<Flag> table = {
      {"--model", "lsp generate info tokenize bench", true,
       [](Options& o, std::string_view v) { o.model = v; return Status{}; }, "GGUF model file"},
      {"--threads", "lsp generate bench info", true,
       [](Options& o, std::string_view v) { return parse_number("--threads", v, o.threads, 0, 1024); },
       "compute threads (default: one per physical core)"},
      {"--context", "lsp generate bench", true,
       [](Options& o, std::string_view v) { return parse_number("--context", v, o.context, 16, 1 << 20); },
       "context length in tokens (default 4096)"},
      {"--kv-type", "lsp generate bench", true,
       [](Options& o, std::string_view v) {
         if (Status t = check_kv_type(v); !t) return Status(make_error("--kv-type: " + t.error().message));
         o.kv_type = v;
         return Status{};
       },
       "KV cache elements: f16 (default: half the memory, faster deep in a context), f32 (exact) or q8_0 (8-bit "
       "keys: less memory and faster attention deep in a context, at some accuracy; key head size a multiple of 32)"},
      {"--chunk-reuse", "lsp", true,
       [](Options& o, std::string_view v) { return parse_number("--chunk-reuse", v, o.chunk_reuse, 0, 1 << 20); },
       "reuse cached spans of at least N tokens that moved (the suffix after a keystroke) instead of recomputing "
       "them (default 0: off)"},
      {"--copy-strength", "lsp", true,
       [](Options& o, std::string_view v) {
         if (v == "auto") return o.copy_strength = -1, Status{};
         if (v == "off") return o.copy_strength = 0, Status{};
         return parse_double("--copy-strength", v, o.copy_strength, 0, 1000);
       },
       "copy predictor mixed into the network's predictions: auto (the model file's wafer.copy_strength; only wafer's "
       "bundled model has one), off, or a strength C > 0 (after an L-token repeat it weighs L/(L+C))"},
      {"--token-healing", "lsp bench", true,
       [](Options& o, std::string_view v) { return parse_on_off("--token-healing", v, o.token_healing); },
       "on|off: take the prefix's last token off the prompt and let the model regenerate it, so a cursor inside "
       "a word continues the word (default on)"},
      {"--fim-format", "lsp bench", true,
       [](Options& o, std::string_view v) {
         if (Status t = check_fim_format(v); !t) return Status(make_error("--fim-format: " + t.error().message));
         o.fim_format = v;
         return Status{};
       },
       "FIM prompt format: auto (from the model's tokens), qwen, starcoder, deepseek, codellama, codegemma or "
       "generic, each optionally with -spm (suffix first: a keystroke reuses the whole cached prompt)"},
      {"--listen", "lsp", true,
       [](Options& o, std::string_view v) { o.listen = v; return Status{}; },
       "serve LSP on loopback TCP HOST:PORT instead of stdio"},
      {"--stdio", "lsp", false,
       [](Options& o, std::string_view) { o.listen.clear(); return Status{}; },
       "serve LSP over standard input/output (the default; accepted because LSP clients such as "
       "vscode-languageclient append it)"},
      {"--allow-remote", "lsp", false,
       [](Options& o, std::string_view) { o.allow_remote = true; return Status{}; },
       "allow --listen on a non-loopback address"},
      {"--debounce-ms", "lsp bench", true,
       [](Options& o, std::string_view v) { return parse_number("--debounce-ms", v, o.debounce_ms, 0, 10000); },
       "wait this long after the last keystroke before starting the engine (default 75)"},
      {"--log-file", "lsp", true,
       [](Options& o, std::string_view v) { o.log_file = v; return Status{}; },
       "append the daemon's log to this file"},
      {"--max-tokens", "lsp bench", true,
       [](Options& o, std::string_view v) { return parse_number("--max-tokens", v, o.max_tokens, 1, 4096); },
       "longest completion in tokens (default 64)"},
      {"--prefix-lines", "lsp bench", true,
       [](Options& o, std::string_view v) { return parse_number("--prefix-lines", v, o.prefix_lines, 0, 100000); },
       "lines before the cursor sent as context (default 60)"},
      {"--suffix-lines", "lsp bench", true,
       [](Options& o, std::string_view v) { return parse_number("--suffix-lines", v, o.suffix_lines, 0, 100000); },
       "lines after the cursor sent as context (default 20)"},
      {"--prefix-tokens", "lsp", true,
       [](Options& o, std::string_view v) { return parse_number("--prefix-tokens", v, o.prefix_tokens, 0, 1 << 20); },
       "prefix budget in tokens (default 1024)"},
      {"--suffix-tokens", "lsp", true,
       [](Options& o, std::string_view v) { return parse_number("--suffix-tokens", v, o.suffix_tokens, 0, 1 << 20); },
       "suffix budget in tokens (default 256)"},
      {"--prefix-step-lines", "lsp", true,
       [](Options& o, std::string_view v) { return parse_number("--prefix-step-lines", v, o.prefix_step_lines, 1, 100000); },
       "the prefix start moves in steps of this many lines, for KV cache reuse (default 16)"},
      {"--extra-tokens", "lsp", true,
       [](Options& o, std::string_view v) { return parse_number("--extra-tokens", v, o.extra_tokens, 0, 1 << 20); },
       "budget for definitions from other open files and beyond the window (default 512; 0: off)"},
      {"--alternatives", "lsp", true,
       [](Options& o, std::string_view v) { return parse_number("--alternatives", v, o.alternatives, 1, 10); },
       "suggestions for an invoked request: the greedy one, then sampled ones (default 3; 1: greedy only)"},
      {"--alternatives-temperature", "lsp", true,
       [](Options& o, std::string_view v) {
         return parse_double("--alternatives-temperature", v, o.alternatives_temperature, 0.01, 2.0);
       },
       "sampling temperature of the alternatives (default 0.7)"},
      {"--alternatives-top-p", "lsp", true,
       [](Options& o, std::string_view v) { return parse_double("--alternatives-top-p", v, o.alternatives_top_p, 0.01, 1.0); },
       "nucleus (top-p) cut of the alternatives' sampling (default 0.95)"},
      {"--ahead-tokens", "lsp", true,
       [](Options& o, std::string_view v) { return parse_number("--ahead-tokens", v, o.ahead_tokens, 0, 4096); },
       "after a suggestion, decode this many tokens of its continuation while idle (default 48; 0: off)"},
      {"--amx", "lsp generate bench", true,
       [](Options& o, std::string_view v) { return parse_on_off("--amx", v, o.amx); },
       "on|off: use AMX tiles for prefill where the CPU has them (Intel Xeon 4th generation and later; checked "
       "against the AVX-512 kernels at first use; default on)"},
      {"--mlock", "lsp", true,
       [](Options& o, std::string_view v) { return parse_on_off("--mlock", v, o.mlock); },
       "on|off: lock the model's weights in RAM so they are never paged out while idle (default off; a refusal, "
       "e.g. RLIMIT_MEMLOCK too low, is a warning and the model still loads)"},
      {"--early-prefill", "lsp bench", true,
       [](Options& o, std::string_view v) { return parse_on_off("--early-prefill", v, o.early_prefill); },
       "on|off: after a keystroke, prefill the prompt of its completion request while the debounce runs, when the "
       "engine is idle, so the request finds it cached when the debounce ends (default on)"},
      {"--latency-budget-ms", "lsp bench", true,
       [](Options& o, std::string_view v) { return parse_number("--latency-budget-ms", v, o.latency_budget_ms, 0, 60000); },
       "while typing, the first token of a suggestion within this long after the engine starts it: when the part "
       "of the prompt not already cached would take longer to prefill, the suffix is cut (whole lines from its end) "
       "to fit (default 300; 0: off)"},
      {"--warm", "lsp", true,
       [](Options& o, std::string_view v) { return parse_on_off("--warm", v, o.warm); },
       "on|off: when the editor sends wafer/warm (a document shown, the cursor moved there), prefill the prompt a "
       "request at that position would have while the engine is idle, so the first suggestion there is quick "
       "(default on)"},
      {"--languages", "lsp", true,
       [](Options& o, std::string_view v) {
         o.languages.clear();
         while (!v.empty()) {
           size_t c = v.find(',');
           if (c != 0) o.languages.emplace_back(v.substr(0, c));
           if (c == std::string_view::npos) break;
           v.remove_prefix(c + 1);
         }
         return Status{};
       },
       "complete only these languageIds, comma-separated (default: all)"},
      {"--fake-engine", "lsp bench", true,
       [](Options& o, std::string_view v) { o.fake_engine = v; return Status{}; },
       "for tests: a scripted fake engine (JSON script) instead of a model"},
      {"--backend", "lsp bench", true,
       [](Options& o, std::string_view v) {
         if (v != "local" && v != "llama-server" && v != "openai")
           return Status(make_error("--backend: expected local, llama-server or openai, got '" + std::string(v) + "'"));
         o.backend = v;
         return Status{};
       },
       "where completions come from: local (the in-process engine, --model), llama-server (POST /infill) or "
       "openai (POST /v1/completions with a FIM prompt) (default local)"},
      {"--backend-url", "lsp bench", true,
       [](Options& o, std::string_view v) { o.backend_url = v; return Status{}; },
       "the remote backend's base URL, e.g. http://gpu-box:8080 (http or https)"},
      {"--backend-model", "lsp bench", true,
       [](Options& o, std::string_view v) { o.backend_model = v; return Status{}; },
       "--backend openai: the \"model\" field of each request"},
      {"--api-key-env", "lsp bench", true,
       [](Options& o, std::string_view v) { o.api_key_env = v; return Status{}; },
       "read the remote backend's API key (sent as Authorization: Bearer) from this environment variable"},
      {"--api-key-file", "lsp bench", true,
       [](Options& o, std::string_view v) { o.api_key_file = v; return Status{}; },
       "read the remote backend's API key from this file"},
      {"--backend-timeout-ms", "lsp bench", true,
       [](Options& o, std::string_view v) {
         return parse_number("--backend-timeout-ms", v, o.backend_timeout_ms, 100, 600000);
       },
       "give up on one remote request after this long (default 10000)"},
      {"--ids", "tokenize", false,
       [](Options& o, std::string_view) { o.ids = true; return Status{}; },
       "print token ids on one line, separated by spaces"},
      {"--pieces", "tokenize", false,
       [](Options& o, std::string_view) { o.pieces = true; return Status{}; },
       "print one token per line: id and piece"},
      {"--special", "tokenize", false,
       [](Options& o, std::string_view) { o.special = true; return Status{}; },
       "recognise special tokens written in the text (e.g. <|fim_prefix|>)"},
      {"--json", "info bench", false,
       [](Options& o, std::string_view) { o.json = true; return Status{}; }, "machine-readable output"},
      {"--residency", "info", false,
       [](Options& o, std::string_view) { o.residency = true; return Status{}; },
       "also measure read bandwidth and report the decode ceiling (bytes per token, caches)"},
      {"--prompt", "generate", true,
       [](Options& o, std::string_view v) { o.prompt = std::string(v); return Status{}; }, "prompt text"},
      {"--prompt-ids", "generate", true,
       [](Options& o, std::string_view v) { o.prompt_ids = v; return Status{}; },
       "prompt as comma-separated token ids"},
      {"-n", "generate", true,
       [](Options& o, std::string_view v) { return parse_number("-n", v, o.n_predict, 0, 1 << 20); },
       "tokens to generate (default 64)"},
      {"--temp", "generate", true,
       [](Options& o, std::string_view v) { return parse_float("--temp", v, o.temperature); },
       "sampling temperature (default 0: greedy)"},
      {"--seed", "generate bench", true,
       [](Options& o, std::string_view v) {
         return parse_number("--seed", v, o.seed, 0ULL, ~0ULL);
       },
       "random seed"},
      {"--logits-json", "generate", true,
       [](Options& o, std::string_view v) { o.logits_json = v; return Status{}; },
       "write per-position top-20 logits and the greedy tokens to FILE"},
      {"--sha256", "pull", true,
       [](Options& o, std::string_view v) { o.sha256 = v; return Status{}; },
       "expected SHA-256 of the file (hex); catalogue models have theirs built in"},
      {"--cache-dir", "pull", true,
       [](Options& o, std::string_view v) { o.cache_dir = v; return Status{}; },
       "download into DIR (default $XDG_CACHE_HOME/wafer/models or ~/.cache/wafer/models)"},
      {"--list", "pull", false,
       [](Options& o, std::string_view) { o.list = true; return Status{}; },
       "list the models known by short name, with sizes and licenses"},
      {"--trace", "bench", true,
       [](Options& o, std::string_view v) { o.trace_file = v; return Status{}; },
       "replay a recorded JSON-lines trace instead of synthesizing one"},
      {"--save-trace", "bench", true,
       [](Options& o, std::string_view v) { o.save_trace = v; return Status{}; },
       "write the replayed trace to FILE (JSON lines)"},
      {"--keystrokes", "bench", true,
       [](Options& o, std::string_view v) { return parse_number("--keystrokes", v, o.keystrokes, 1, 1000000); },
       "keystrokes in the synthesized trace (default 300)"},
      {"--start-line", "bench", true,
       [](Options& o, std::string_view v) { return parse_number("--start-line", v, o.start_line, 0, 100000000); },
       "line where typing starts, 1-based (default: the middle of the file)"},
      {"--wpm", "bench", true,
       [](Options& o, std::string_view v) { return parse_double("--wpm", v, o.wpm, 1, 10000); },
       "typing speed in words (5 characters) per minute (default 50)"},
      {"--typo-rate", "bench", true,
       [](Options& o, std::string_view v) { return parse_double("--typo-rate", v, o.typo_rate, 0, 1); },
       "chance that a letter is mistyped, then fixed with backspace (default 0.03)"},
      {"--accept", "bench", true,
       [](Options& o, std::string_view v) { return parse_double("--accept", v, o.accept, 0, 1); },
       "chance that the user accepts a suggestion that matches what comes next (default 0.7)"},
      {"--warmup", "bench", true,
       [](Options& o, std::string_view v) { return parse_number("--warmup", v, o.warmup, 0, 1000); },
       "invoked requests answered before the clock starts, e.g. while the model loads (default 1)"},
      {"--drain-ms", "bench", true,
       [](Options& o, std::string_view v) { return parse_number("--drain-ms", v, o.drain_ms, 0, 3600000); },
       "after the last keystroke, wait this long for outstanding answers (default 15000)"},
      {"--no-stream", "bench", false,
       [](Options& o, std::string_view) { o.no_stream = true; return Status{}; },
       "do not ask for streamed partial results"},
      {"--out", "bench", true,
       [](Options& o, std::string_view v) { o.out_file = v; return Status{}; },
       "write the JSON report to FILE"},
      {"--html", "bench", true,
       [](Options& o, std::string_view v) { o.html_file = v; return Status{}; },
       "write a self-contained HTML report (histogram, latency over time) to FILE"},
      {"--target", "bench", true,
       [](Options& o, std::string_view v) { o.targets.emplace_back(v); return Status{}; },
       "another target on the same trace (repeatable): wafer, lsp:COMMAND, llamacpp:URL, openai:URL"},
      {"--url", "bench", true,
       [](Options& o, std::string_view v) { o.url = v; return Status{}; },
       "bench infill: the endpoint's base URL, e.g. http://127.0.0.1:8080"},
      {"--api", "bench", true,
       [](Options& o, std::string_view v) {
         if (v != "llamacpp" && v != "openai") return Status(make_error("--api: expected llamacpp or openai"));
         o.api = v;
         return Status{};
       },
       "bench infill: llamacpp (POST /infill) or openai (POST /v1/completions with a FIM prompt)"},
      {"--api-model", "bench", true,
       [](Options& o, std::string_view v) { o.api_model = v; return Status{}; },
       "bench infill --api openai: the \"model\" field"},
      {"--fim-template", "lsp bench", true,
       [](Options& o, std::string_view v) { o.prompt_template = v; return Status{}; },
       "--backend openai, bench infill --api openai: a custom prompt, {extra}, {prefix} and {suffix} replaced "
       "(default: the --fim-format family's own; auto: Qwen2.5-Coder's)"},
  };
  return table;
}

bool accepts(const Flag& f, std::string_view command) {
  std::string_view cs = f.commands;
  while (!cs.empty()) {
    size_t sp = cs.find(' ');
    std::string_view c = cs.substr(0, sp);
    if (c == "*" || c == command) return true;
    if (sp == std::string_view::npos) break;
    cs.remove_prefix(sp + 1);
  }
  return false;
}

}  // namespace

Result<Options> parse_options(int argc, const char* const* argv) {
  Options o;
  int i = 1;
  // Global flags before the subcommand.
  for (; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--help" || a == "-h") o.help = true;
    else if (a == "--version" || a == "-V") o.version = true;
    else break;
  }
  if (i < argc) {
    std::string_view c = argv[i];
    bool known = false;
    for (std::string_view k : kCommands) known |= (k == c);
    if (!known) return make_error("unknown command '" + std::string(c) + "' (try 'wafer --help')");
    o.command = c;
    ++i;
  }
  if (o.command == "help") {
    o.help = true;
    if (i < argc) o.command = argv[i++];
    else o.command.clear();
    return o;
  }
  for (; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--help" || a == "-h") { o.help = true; continue; }
    if (a == "--version" || a == "-V") { o.version = true; continue; }
    if (a == "--") {
      o.positional_before_dashes = static_cast<int>(o.positional.size());
      for (++i; i < argc; ++i) o.positional.emplace_back(argv[i]);
      break;
    }
    if (a.size() > 1 && a[0] == '-' && !(a.size() > 1 && (a[1] >= '0' && a[1] <= '9'))) {
      std::string_view name = a, value;
      bool inline_value = false;
      if (size_t eq = a.find('='); eq != std::string_view::npos && a.starts_with("--")) {
        name = a.substr(0, eq);
        value = a.substr(eq + 1);
        inline_value = true;
      }
      const Flag* flag = nullptr;
      for (const Flag& f : flags())
        if (f.name == name) flag = &f;
      if (!flag || !accepts(*flag, o.command))
        return make_error("unknown option '" + std::string(name) + "'" +
                          (o.command.empty() ? "" : " for 'wafer " + o.command + "'") +
                          " (try 'wafer " + o.command + (o.command.empty() ? "" : " ") + "--help')");
      if (flag->takes_value && !inline_value) {
        if (i + 1 >= argc) return make_error(std::string(name) + ": missing value");
        value = argv[++i];
      } else if (!flag->takes_value && inline_value) {
        return make_error(std::string(name) + " takes no value");
      }
      if (Status s = flag->set(o, value); !s) return s.error();
      continue;
    }
    o.positional.emplace_back(a);
  }
  return o;
}

std::string usage(const std::string& command) {
  std::string s;
  if (command.empty()) {
    s = "wafer — local, offline inline code completion\n\n"
        "usage: wafer [--version] [--help] COMMAND [OPTIONS]\n\n"
        "commands:\n"
        "  lsp        run the Language Server Protocol daemon (stdio, or --listen)\n"
        "  tokenize   tokenize text with a model's tokenizer\n"
        "  generate   generate text from a prompt (timings on stderr)\n"
        "  info       describe a GGUF model\n"
        "  bench      measure completion latency\n"
        "  pull       download a GGUF model (by short name or URL) into the cache\n\n"
        "Run 'wafer COMMAND --help' for a command's options.\n";
    return s;
  }
  s = "usage: wafer " + command;
  if (command == "tokenize") s += " MODEL.gguf [--ids|--pieces] [--special] [TEXT]   (TEXT from stdin when absent)";
  else if (command == "info") s += " MODEL.gguf [--json] [--residency [--threads N]]";
  else if (command == "generate") s += " MODEL.gguf --prompt TEXT [-n N] [--temp T] [--seed S] [--threads N]";
  else if (command == "lsp") s += " [--model PATH] [--listen 127.0.0.1:PORT] [OPTIONS]";
  else if (command == "pull") s += " NAME|URL [--sha256 HEX] [--cache-dir DIR]   (prints the model's path)";
  else if (command == "bench")
    s += " replay SOURCE [--model PATH] [OPTIONS] [-- SERVER COMMAND...]\n"
         "       wafer bench replay --trace TRACE.jsonl [OPTIONS]\n"
         "       wafer bench infill SOURCE --url URL [--api llamacpp|openai] [OPTIONS]";
  else s += " [OPTIONS]";
  s += "\n\noptions:\n";
  for (const Flag& f : flags()) {
    if (!accepts(f, command)) continue;
    std::string left = "  " + std::string(f.name) + (f.takes_value ? " VALUE" : "");
    if (left.size() < 24) left.resize(24, ' ');
    else left += "  ";
    s += left + std::string(f.help) + "\n";
  }
  s += "  --help                show this help\n";
  return s;
}

}  // namespace wafer
