// The one table of settings. Each row is one command-line flag, one LSP settings key
// (initializationOptions / workspace/didChangeConfiguration), or both: the subcommands
// that accept the flag, how its value is read and checked, the Options member it writes,
// whether a change reloads the engine or re-creates the backend, its default and its help.
//
// The table drives the flag parser (options.cpp), the LSP settings parser
// (lsp/settings.cpp), engine_changed(), `wafer COMMAND --help` and the README's table
// of settings (`wafer help settings` prints it; a test keeps README.md equal to it).
// Adding a setting is adding a member to Options and a row to settings_table.cpp (and, for
// an engine setting, a line to engine_options() beside it: a test fails until there is one).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/base/result.h"
#include "engine/types.h"
#include "server/config/options.h"

namespace wafer {

enum class SettingKind {
  Int,     // a whole number in [lo, hi]; LSP: a JSON integer
  Double,  // a number in [lo, hi]; LSP: a JSON number
  OnOff,   // flag value on|off; LSP: a JSON boolean
  Switch,  // a flag without a value that sets a bool (or does `parse_flag`); never an LSP key
  String,  // any text; LSP: a JSON string
  Choice,  // text that `choices` lists or `check` accepts; LSP: a JSON string
  List,    // flag: comma-separated; LSP: a JSON array of strings
  Custom,  // the flag is read by `parse_flag` only; never an LSP key
};

// What a change of the setting needs from the daemon.
enum class Reload {
  None,     // nothing: the next request uses the new value
  Engine,   // an input of engine_options(): the model is loaded again
  Backend,  // the backend is created anew (remote backends, the scripted engine)
};

// The Options member a row writes (and engine_changed() compares).
using SettingField =
    std::variant<std::monostate, int Options::*, double Options::*, float Options::*, bool Options::*,
                 unsigned long long Options::*, std::string Options::*, std::optional<std::string> Options::*,
                 std::vector<std::string> Options::*>;

struct Setting {
  std::string_view flag;      // "--debounce-ms"; empty: no flag
  std::string_view key;       // "debounceMs"; empty: not an LSP setting
  std::string_view commands;  // the subcommands that accept the flag, space-separated
  SettingKind kind = SettingKind::String;
  SettingField field;
  double lo = 0, hi = 0;                         // Int, Double: the accepted range
  std::string_view choices;                      // Choice: the accepted values, space-separated...
  Status (*check)(std::string_view) = nullptr;   // ...or a function that accepts or refuses one
  Status (*parse_flag)(Options&, std::string_view value) = nullptr;  // a flag read its own way
  Reload reload = Reload::None;
  std::string_view implicit;  // the value of the flag given without one (last, or before another flag); "" required
  std::string_view metavar;  // what the flag's value is called in help ("N", "PATH")
  std::string_view def;      // the default as text ("" when there is nothing to say)
  std::string_view help;     // Markdown: `code` and [links](#anchors); plain text in --help
};

// Reads a flag's number in [lo, hi] (options.cpp; for rows with their own parse_flag).
Status read_flag_double(std::string_view flag, std::string_view text, double& out, double lo, double hi);

// Every row; flags in the order `--help` lists them.
const std::vector<Setting>& settings_table();

// Space-separated word lists (a row's commands and choices): whether `word` is one of
// them, and the words as an error message lists them ("a, b or c"; each in `quote`).
bool in_word_list(std::string_view words, std::string_view word);
std::string word_list_text(std::string_view words, std::string_view quote = "");

// Whether the row's flag is accepted by `wafer COMMAND`, and whether it takes a value.
bool accepts(const Setting& s, std::string_view command);
bool takes_value(const Setting& s);

// Whether a and b hold the same value in the row's field.
bool same_value(const Setting& s, const Options& a, const Options& b);

// The engine options implied by the settings (the rows marked Reload::Engine), and whether
// two settings differ in a row that needs a reload (of the model, or a new backend).
EngineOptions engine_options(const Options& o);
bool engine_changed(const Options& a, const Options& b);

// The README's table of the daemon's settings (the rows `wafer lsp` accepts or that have an
// LSP key), in Markdown, as `wafer help settings` prints it (settings_doc.cpp).
std::string settings_markdown();

// The options part of `wafer COMMAND --help`: one entry per flag the command accepts.
std::string flags_help(std::string_view command);

}  // namespace wafer
