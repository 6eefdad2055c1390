// The settings table: its rows are consistent, and what they say about reloads is what
// engine_options() and engine_changed() do.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <tuple>
#include <type_traits>

#include "server/config/settings_table.h"

using namespace wafer;

namespace {

// Every field of EngineOptions (a new one must be added here too).
auto fields(const EngineOptions& e) {
  return std::tie(e.model_path, e.draft_model_path, e.draft_quant, e.draft_vocab, e.prompt_lookup, e.threads, e.context_length, e.max_sessions, e.max_cache_mb, e.prefill_chunk,
                  e.max_draft, e.chunk_reuse_min, e.fim_format, e.copy_strength, e.kv_type, e.lock_memory, e.amx, e.amx_bf16,
                  e.token_healing);
}

// o with the row's field changed to another value the row accepts.
Options changed(const Setting& s, Options o) {
  std::visit(
      [&](auto member) {
        using M = decltype(member);
        if constexpr (std::is_same_v<M, std::monostate>) {
          FAIL("row " << s.flag << s.key << " has no field");
        } else {
          auto& v = o.*member;
          using T = std::remove_reference_t<decltype(v)>;
          if constexpr (std::is_same_v<T, bool>) v = !v;
          else if constexpr (std::is_same_v<T, int>) v = v + 1 <= s.hi ? v + 1 : v - 1;
          else if constexpr (std::is_same_v<T, double>) v = v + 0.01 <= s.hi ? v + 0.01 : v - 0.01;
          else if constexpr (std::is_same_v<T, float>) v += 0.5f;
          else if constexpr (std::is_same_v<T, unsigned long long>) v += 1;
          else if constexpr (std::is_same_v<T, std::string>) v += "x";
          else if constexpr (std::is_same_v<T, std::optional<std::string>>) v = v.value_or("") + "x";
          else v.push_back("x");
        }
      },
      s.field);
  return o;
}

std::string name(const Setting& s) { return std::string(s.flag.empty() ? s.key : s.flag); }

}  // namespace

TEST_CASE("settings table: every engine row reaches engine_options(), no other row does", "[settings_table]") {
  const Options base;
  for (const Setting& s : settings_table()) {
    if (std::holds_alternative<std::monostate>(s.field)) continue;
    INFO(name(s));
    bool differs = fields(engine_options(changed(s, base))) != fields(engine_options(base));
    CHECK(differs == (s.reload == Reload::Engine));
  }
}

TEST_CASE("settings table: engine_changed() is the rows marked for a reload", "[settings_table]") {
  const Options base;
  for (const Setting& s : settings_table()) {
    if (std::holds_alternative<std::monostate>(s.field)) continue;
    INFO(name(s));
    CHECK(engine_changed(base, changed(s, base)) == (s.reload != Reload::None));
  }
  CHECK_FALSE(engine_changed(base, base));
}

TEST_CASE("settings table: rows are complete and consistent", "[settings_table]") {
  std::set<std::string_view> flags, keys;
  for (const Setting& s : settings_table()) {
    INFO(name(s));
    CHECK((!s.flag.empty() || !s.key.empty()));
    CHECK_FALSE(s.help.empty());
    CHECK_FALSE(std::holds_alternative<std::monostate>(s.field));
    if (!s.flag.empty()) {
      CHECK(s.flag[0] == '-');
      CHECK_FALSE(s.commands.empty());
      CHECK(flags.insert(s.flag).second);
    }
    if (!s.key.empty()) {
      CHECK(keys.insert(s.key).second);
      CHECK(s.kind != SettingKind::Switch);  // these are read by the flag parser only
      CHECK(s.kind != SettingKind::Custom);
    }
    if (s.kind == SettingKind::Custom) CHECK(s.parse_flag != nullptr);
    if (s.kind == SettingKind::Int) {
      CHECK(std::holds_alternative<int Options::*>(s.field));
      CHECK(s.lo <= s.hi);
    }
    if (s.kind == SettingKind::Double) {
      CHECK(std::holds_alternative<double Options::*>(s.field));
      CHECK(s.lo <= s.hi);
    }
    if (s.kind == SettingKind::OnOff || (s.kind == SettingKind::Switch && !s.parse_flag))
      CHECK(std::holds_alternative<bool Options::*>(s.field));
    if (s.kind == SettingKind::Choice) {
      CHECK(std::holds_alternative<std::string Options::*>(s.field));
      CHECK((s.check != nullptr) != !s.choices.empty());
    }
    if (s.kind == SettingKind::List) CHECK(std::holds_alternative<std::vector<std::string> Options::*>(s.field));
    if (s.kind == SettingKind::String && !s.key.empty())
      CHECK(std::holds_alternative<std::string Options::*>(s.field));
  }
}

TEST_CASE("settings table: help and the README table come from the rows", "[settings_table]") {
  std::string lsp = flags_help("lsp");
  CHECK(lsp.find("  --debounce-ms N       wait this long after the last keystroke") != std::string::npos);
  CHECK(lsp.find("--token-healing on|off") != std::string::npos);
  CHECK(lsp.find("[") == std::string::npos);  // Markdown links are plain text in --help
  CHECK(lsp.find("`") == std::string::npos);
  CHECK(lsp.find("--ids") == std::string::npos);  // a tokenize flag
  for (size_t start = 0, end; (end = lsp.find('\n', start)) != std::string::npos; start = end + 1)
    CHECK(end - start <= 100);
  std::string md = settings_markdown();
  CHECK(md.rfind("| flag | setting key | default | meaning |\n|---|---|---|---|\n", 0) == 0);
  CHECK(md.find("| `--debounce-ms N` | `debounceMs` | 75 | ") != std::string::npos);
  CHECK(md.find("| `--warm on\\|off` | `warm` (boolean) | on | ") != std::string::npos);
  CHECK(md.find("| | `windowBytes` |") != std::string::npos);  // an LSP key without a flag
  CHECK(md.find("--ids") == std::string::npos);
  CHECK(usage("settings") == md);
}
