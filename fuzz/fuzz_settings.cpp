// libFuzzer target for the daemon's settings: the client's initializationOptions /
// didChangeConfiguration object (apply_settings) and the command line (parse_options),
// both read through the one settings table.
//
// Input: the first byte picks the parser. Even: the rest is JSON text given to
// apply_settings (text that is not JSON is given as a JSON string). Odd: the rest is the
// command line after "wafer", arguments separated by NUL bytes.
// Checks, besides memory safety and undefined behaviour: a refused settings object leaves
// the options as they were; an accepted one leaves every row in its range and choices,
// and applying it again changes nothing; the options of an accepted command line give an
// engine configuration and help text without failing.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/config/options.h"
#include "server/config/settings_table.h"
#include "server/lsp/settings.h"

namespace fuzz_settings {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_settings: promise broken: %s\n", what.c_str());
  std::abort();
}

bool same_options(const wafer::Options& a, const wafer::Options& b) {
  for (const wafer::Setting& row : wafer::settings_table())
    if (!std::holds_alternative<std::monostate>(row.field) && !wafer::same_value(row, a, b)) return false;
  return true;
}

// Every LSP-settable row of o holds a value its row accepts.
void check_in_range(const wafer::Options& o) {
  for (const wafer::Setting& row : wafer::settings_table()) {
    if (row.key.empty()) continue;
    const std::string key(row.key);
    if (row.kind == wafer::SettingKind::Int) {
      int v = o.*std::get<int wafer::Options::*>(row.field);
      if (v < row.lo || v > row.hi) fail(key + " out of range: " + std::to_string(v));
    } else if (row.kind == wafer::SettingKind::Double) {
      double v = o.*std::get<double wafer::Options::*>(row.field);
      if (!(v >= row.lo && v <= row.hi)) fail(key + " out of range: " + std::to_string(v));
    } else if (row.kind == wafer::SettingKind::Choice && !row.check) {
      const std::string& v = o.*std::get<std::string wafer::Options::*>(row.field);
      if (!wafer::in_word_list(row.choices, v)) fail(key + " not one of its choices: " + v);
    }
  }
}

void settings(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) j = std::string(text);
  wafer::Options defaults;
  wafer::Options o = defaults;
  wafer::Status st = wafer::apply_settings(o, j);
  if (!st) {
    if (st.error().message.empty()) fail("an error without a message");
    if (!same_options(o, defaults)) fail("refused settings changed the options: " + st.error().message);
    return;
  }
  check_in_range(o);
  wafer::Options again = o;
  if (!wafer::apply_settings(again, j)) fail("settings accepted once, refused the second time");
  if (!same_options(again, o)) fail("applying the same settings twice gave different options");
  (void)wafer::engine_options(o);
  (void)wafer::engine_changed(defaults, o);
  (void)wafer::language_enabled(o, "python");
}

void command_line(std::string_view text) {
  std::vector<std::string> args = {"wafer"};
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\0', start);
    if (end == std::string_view::npos) end = text.size();
    args.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  wafer::Result<wafer::Options> r = wafer::parse_options(static_cast<int>(args.size()), argv.data());
  if (!r) {
    if (r.error().message.empty()) fail("an error without a message");
    return;
  }
  (void)wafer::engine_options(*r);
  (void)wafer::usage(r->command);
  (void)wafer::flags_help(r->command);
}

int run_one(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) command_line(rest);
  else settings(rest);
  return 0;
}

}  // namespace fuzz_settings

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fuzz_settings::run_one(data, size); }
