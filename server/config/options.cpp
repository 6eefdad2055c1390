#include "server/config/options.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <string_view>

#include "server/config/settings_table.h"

namespace wafer {
namespace {

constexpr std::array<std::string_view, 8> kCommands{"lsp", "complete", "tokenize", "generate", "info", "bench",
                                                    "pull", "help"};

// Flag values, read as the row's kind says (settings_table.cpp).
Status parse_int(std::string_view flag, std::string_view text, int& out, long long lo, long long hi) {
  long long v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v < lo || v > hi)
    return make_error(std::string(flag) + ": expected a number from " + std::to_string(lo) + " to " +
                      std::to_string(hi) + ", got '" + std::string(text) + "'");
  out = static_cast<int>(v);
  return {};
}

Status parse_on_off(std::string_view flag, std::string_view text, bool& out) {
  if (text != "on" && text != "off")
    return make_error(std::string(flag) + ": expected on or off, got '" + std::string(text) + "'");
  out = text == "on";
  return {};
}

// "a, b or c" from "a b c".
Status set_flag(const Setting& s, Options& o, std::string_view v) {
  if (s.parse_flag) return s.parse_flag(o, v);
  switch (s.kind) {
    case SettingKind::Int:
      return parse_int(s.flag, v, o.*std::get<int Options::*>(s.field), static_cast<long long>(s.lo),
                       static_cast<long long>(s.hi));
    case SettingKind::Double:
      return read_flag_double(s.flag, v, o.*std::get<double Options::*>(s.field), s.lo, s.hi);
    case SettingKind::OnOff:
      return parse_on_off(s.flag, v, o.*std::get<bool Options::*>(s.field));
    case SettingKind::Switch:
      o.*std::get<bool Options::*>(s.field) = true;
      return {};
    case SettingKind::Choice:
      if (s.check) {
        if (Status t = s.check(v); !t) return make_error(std::string(s.flag) + ": " + t.error().message);
      } else if (!in_word_list(s.choices, v)) {
        return make_error(std::string(s.flag) + ": expected " + word_list_text(s.choices) + ", got '" + std::string(v) +
                          "'");
      }
      [[fallthrough]];
    case SettingKind::String:
      if (auto* m = std::get_if<std::optional<std::string> Options::*>(&s.field)) o.**m = std::string(v);
      else o.*std::get<std::string Options::*>(s.field) = v;
      return {};
    case SettingKind::List: {
      std::vector<std::string>& list = o.*std::get<std::vector<std::string> Options::*>(s.field);
      list.clear();
      while (!v.empty()) {
        size_t c = v.find(',');
        if (c != 0) list.emplace_back(v.substr(0, c));
        if (c == std::string_view::npos) break;
        v.remove_prefix(c + 1);
      }
      return {};
    }
    case SettingKind::Custom:
      break;
  }
  return make_error(std::string(s.flag) + ": no parser");
}

}  // namespace

Status read_flag_double(std::string_view flag, std::string_view text, double& out, double lo, double hi) {
  std::string s(text);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !(v >= lo && v <= hi))
    return make_error(std::string(flag) + ": expected a number from " + std::to_string(lo) + " to " +
                      std::to_string(hi) + ", got '" + s + "'");
  out = v;
  return {};
}

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
      const Setting* flag = nullptr;
      for (const Setting& f : settings_table())
        if (!f.flag.empty() && f.flag == name) flag = &f;
      if (!flag || !accepts(*flag, o.command))
        return make_error("unknown option '" + std::string(name) + "'" +
                          (o.command.empty() ? "" : " for 'wafer " + o.command + "'") +
                          " (try 'wafer " + o.command + (o.command.empty() ? "" : " ") + "--help')");
      if (takes_value(*flag) && !inline_value) {
        const bool next_is_flag = i + 1 < argc && argv[i + 1][0] == '-' && argv[i + 1][1] != '\0';
        if (!flag->implicit.empty() && (i + 1 >= argc || next_is_flag)) value = flag->implicit;
        else if (i + 1 >= argc) return make_error(std::string(name) + ": missing value");
        else value = argv[++i];
      } else if (!takes_value(*flag) && inline_value) {
        return make_error(std::string(name) + " takes no value");
      }
      // An empty value would read as the flag not given (--listen= as stdio).
      if (!flag->implicit.empty() && value.empty())
        return make_error(std::string(name) + ": empty value; give " + std::string(name) + " alone for its default (" +
                          std::string(flag->implicit) + ") or with a value");
      if (Status s = set_flag(*flag, o, value); !s) return s.error();
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
        "  complete   complete at FILE:LINE:COL of a file, as the daemon would (timings on stderr)\n"
        "  tokenize   tokenize text with a model's tokenizer\n"
        "  generate   generate text from a prompt (timings on stderr)\n"
        "  info       describe a GGUF model\n"
        "  bench      measure completion latency\n"
        "  pull       download a GGUF model (by short name or URL) into the cache\n\n"
        "Run 'wafer COMMAND --help' for a command's options, 'wafer help settings' for the\n"
        "daemon's settings (flags and LSP keys) as a Markdown table.\n";
    return s;
  }
  if (command == "settings") return settings_markdown();
  s = "usage: wafer " + command;
  if (command == "tokenize") s += " MODEL.gguf [--ids|--pieces] [--special] [TEXT]   (TEXT from stdin when absent)";
  else if (command == "complete")
    s += " FILE:LINE:COL [--model PATH|NAME] [--max-tokens N] [--json]   (LINE and COL from 1; COL counts characters)";
  else if (command == "info") s += " [MODEL.gguf|NAME] [--json] [--residency [--threads N]]";
  else if (command == "generate") s += " MODEL.gguf --prompt TEXT [-n N] [--temp T] [--seed S] [--threads N]";
  else if (command == "lsp") s += " [--model PATH] [--listen [PATH|HOST:PORT]] [OPTIONS]";
  else if (command == "pull")
    s += " NAME|URL [--sha256 HEX] [--cache-dir DIR]   (prints the model's path)\n"
         "environment: HF_ENDPOINT=URL fetches catalogue files from a Hugging Face mirror;\n"
         "             WAFER_CATALOG=FILE replaces the catalogue (docs/commands.md#wafer-pull)";
  else if (command == "bench")
    s += " replay SOURCE [--model PATH] [OPTIONS] [-- SERVER COMMAND...]\n"
         "       wafer bench replay --trace TRACE.jsonl [OPTIONS]\n"
         "       wafer bench infill SOURCE --url URL [--api llamacpp|openai] [OPTIONS]";
  else s += " [OPTIONS]";
  s += "\n\noptions:\n";
  s += flags_help(command);
  s += "  --help                show this help\n";
  return s;
}

bool language_enabled(const Options& o, std::string_view language_id) {
  return o.languages.empty() || std::find(o.languages.begin(), o.languages.end(), language_id) != o.languages.end();
}

}  // namespace wafer
