#include "server/lsp/settings.h"

#include <algorithm>

namespace wafer {
namespace {

using json = nlohmann::json;

// Reads one key's value into o as the row's kind says.
Status apply_value(const Setting& s, Options& o, const json& v) {
  const std::string key(s.key);
  switch (s.kind) {
    case SettingKind::Int:
      if (!v.is_number_integer() || v.get<int64_t>() < static_cast<int64_t>(s.lo) ||
          v.get<int64_t>() > static_cast<int64_t>(s.hi))
        return make_error(key + ": expected an integer from " + std::to_string(static_cast<int64_t>(s.lo)) +
                          " to " + std::to_string(static_cast<int64_t>(s.hi)) + ", got " + v.dump());
      o.*std::get<int Options::*>(s.field) = v.get<int>();
      return {};
    case SettingKind::Double:
      if (!v.is_number() || !(v.get<double>() >= s.lo && v.get<double>() <= s.hi))
        return make_error(key + ": expected a number from " + std::to_string(s.lo) + " to " +
                          std::to_string(s.hi) + ", got " + v.dump());
      o.*std::get<double Options::*>(s.field) = v.get<double>();
      return {};
    case SettingKind::OnOff:
      if (!v.is_boolean()) return make_error(key + ": expected a boolean, got " + v.type_name());
      o.*std::get<bool Options::*>(s.field) = v.get<bool>();
      return {};
    case SettingKind::String:
    case SettingKind::Choice: {
      if (!v.is_string()) return make_error(key + ": expected a string, got " + v.type_name());
      const std::string& text = v.get_ref<const std::string&>();
      if (s.kind == SettingKind::Choice && s.check) {
        if (Status t = s.check(text); !t) return make_error(key + ": " + t.error().message);
      } else if (s.kind == SettingKind::Choice && !in_word_list(s.choices, text)) {
        return make_error(key + ": expected " + word_list_text(s.choices, "\"") + ", got \"" + text + "\"");
      }
      o.*std::get<std::string Options::*>(s.field) = text;
      return {};
    }
    case SettingKind::List: {
      if (!v.is_array()) return make_error(key + ": expected an array of strings, got " + v.type_name());
      std::vector<std::string> list;
      for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string())
          return make_error(key + "[" + std::to_string(i) + "]: expected a string, got " + v[i].type_name());
        list.push_back(v[i].get<std::string>());
      }
      o.*std::get<std::vector<std::string> Options::*>(s.field) = std::move(list);
      return {};
    }
    case SettingKind::Switch:
    case SettingKind::Custom:
      break;
  }
  return make_error(key + ": not a setting");
}

}  // namespace

Status apply_settings(Options& o, const json& settings_in) {
  if (settings_in.is_null() || (settings_in.is_array() && settings_in.empty())) return {};  // "no settings"
  if (!settings_in.is_object()) return make_error(std::string("settings: expected an object, got ") + settings_in.type_name());
  const json* s = &settings_in;
  if (auto w = settings_in.find("wafer"); w != settings_in.end() && w->is_object()) s = &*w;
  Options next = o;
  for (const Setting& row : settings_table()) {
    if (row.key.empty()) continue;
    auto it = s->find(std::string(row.key));
    if (it == s->end() || it->is_null()) continue;
    if (Status st = apply_value(row, next, *it); !st) return st;
  }
  o = std::move(next);
  return {};
}

}  // namespace wafer
