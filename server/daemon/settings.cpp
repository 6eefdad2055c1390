#include "server/daemon/settings.h"

#include <algorithm>


namespace wafer {
namespace {

using json = nlohmann::json;

Status read_int(const json& s, const char* key, int lo, int hi, int& out) {
  auto it = s.find(key);
  if (it == s.end() || it->is_null()) return {};
  if (!it->is_number_integer() || it->get<int64_t>() < lo || it->get<int64_t>() > hi)
    return make_error(std::string(key) + ": expected an integer from " + std::to_string(lo) + " to " +
                      std::to_string(hi) + ", got " + it->dump());
  out = it->get<int>();
  return {};
}

Status read_double(const json& s, const char* key, double lo, double hi, double& out) {
  auto it = s.find(key);
  if (it == s.end() || it->is_null()) return {};
  if (!it->is_number() || !(it->get<double>() >= lo && it->get<double>() <= hi))
    return make_error(std::string(key) + ": expected a number from " + std::to_string(lo) + " to " +
                      std::to_string(hi) + ", got " + it->dump());
  out = it->get<double>();
  return {};
}

}  // namespace

Status apply_settings(Options& o, const json& settings_in) {
  if (settings_in.is_null() || (settings_in.is_array() && settings_in.empty())) return {};  // "no settings"
  if (!settings_in.is_object()) return make_error(std::string("settings: expected an object, got ") + settings_in.type_name());
  const json* s = &settings_in;
  if (auto w = settings_in.find("wafer"); w != settings_in.end() && w->is_object()) s = &*w;
  Options next = o;
  for (auto [key, field] : {std::pair{"model", &next.model}, std::pair{"backend", &next.backend},
                            std::pair{"backendUrl", &next.backend_url}, std::pair{"backendModel", &next.backend_model},
                            std::pair{"apiKeyEnv", &next.api_key_env}, std::pair{"apiKeyFile", &next.api_key_file},
                            std::pair{"fimTemplate", &next.prompt_template}}) {
    auto it = s->find(key);
    if (it == s->end() || it->is_null()) continue;
    if (!it->is_string()) return make_error(std::string(key) + ": expected a string, got " + it->type_name());
    *field = it->get<std::string>();
  }
  if (next.backend != "local" && next.backend != "llama-server" && next.backend != "openai")
    return make_error("backend: expected \"local\", \"llama-server\" or \"openai\", got \"" + next.backend + "\"");
  if (auto it = s->find("fimFormat"); it != s->end() && !it->is_null()) {
    if (!it->is_string()) return make_error(std::string("fimFormat: expected a string, got ") + it->type_name());
    if (Status t = check_fim_format(it->get<std::string>()); !t) return make_error("fimFormat: " + t.error().message);
    next.fim_format = it->get<std::string>();
  }
  if (auto it = s->find("kvType"); it != s->end() && !it->is_null()) {
    if (!it->is_string()) return make_error(std::string("kvType: expected a string, got ") + it->type_name());
    if (Status t = check_kv_type(it->get<std::string>()); !t) return make_error("kvType: " + t.error().message);
    next.kv_type = it->get<std::string>();
  }
  for (auto [key, field] : {std::pair{"tokenHealing", &next.token_healing}, std::pair{"warm", &next.warm},
                            std::pair{"earlyPrefill", &next.early_prefill},
                            std::pair{"mlock", &next.mlock}, std::pair{"amx", &next.amx}}) {
    if (auto it = s->find(key); it != s->end() && !it->is_null()) {
      if (!it->is_boolean()) return make_error(std::string(key) + ": expected a boolean, got " + it->type_name());
      *field = it->get<bool>();
    }
  }
  for (auto [key, lo, hi, field] : {std::tuple{"threads", 0, 1024, &next.threads},
                                    std::tuple{"contextLength", 16, 1 << 20, &next.context},
                                    std::tuple{"chunkReuse", 0, 1 << 20, &next.chunk_reuse},
                                    std::tuple{"debounceMs", 0, 10000, &next.debounce_ms},
                                    std::tuple{"latencyBudgetMs", 0, 60000, &next.latency_budget_ms},
                                    std::tuple{"maxTokens", 1, 4096, &next.max_tokens},
                                    std::tuple{"prefixLines", 0, 100000, &next.prefix_lines},
                                    std::tuple{"suffixLines", 0, 100000, &next.suffix_lines},
                                    std::tuple{"windowBytes", 256, 1 << 24, &next.window_bytes},
                                    std::tuple{"prefixTokens", 0, 1 << 20, &next.prefix_tokens},
                                    std::tuple{"suffixTokens", 0, 1 << 20, &next.suffix_tokens},
                                    std::tuple{"prefixStepLines", 1, 100000, &next.prefix_step_lines},
                                    std::tuple{"extraTokens", 0, 1 << 20, &next.extra_tokens},
                                    std::tuple{"alternatives", 1, 10, &next.alternatives},
                                    std::tuple{"aheadTokens", 0, 4096, &next.ahead_tokens},
                                    std::tuple{"backendTimeoutMs", 100, 600000, &next.backend_timeout_ms}}) {
    if (Status st = read_int(*s, key, lo, hi, *field); !st) return st;
  }
  for (auto [key, lo, hi, field] : {std::tuple{"copyStrength", -1.0, 1000.0, &next.copy_strength},
                                    std::tuple{"alternativesTemperature", 0.01, 2.0, &next.alternatives_temperature},
                                    std::tuple{"alternativesTopP", 0.01, 1.0, &next.alternatives_top_p}}) {
    if (Status st = read_double(*s, key, lo, hi, *field); !st) return st;
  }
  if (auto it = s->find("enabledLanguages"); it != s->end() && !it->is_null()) {
    if (!it->is_array()) return make_error(std::string("enabledLanguages: expected an array of strings, got ") + it->type_name());
    next.languages.clear();
    for (size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_string())
        return make_error("enabledLanguages[" + std::to_string(i) + "]: expected a string, got " + (*it)[i].type_name());
      next.languages.push_back((*it)[i].get<std::string>());
    }
  }
  o = std::move(next);
  return {};
}

EngineOptions engine_options(const Options& o) {
  EngineOptions e;
  e.model_path = o.model;
  e.threads = o.threads;
  e.context_length = o.context;
  e.kv_type = o.kv_type;
  e.chunk_reuse_min = o.chunk_reuse;
  e.fim_format = o.fim_format;
  e.copy_strength = static_cast<float>(o.copy_strength);
  e.token_healing = o.token_healing;
  e.lock_memory = o.mlock;
  e.amx = o.amx;
  return e;
}

bool engine_changed(const Options& a, const Options& b) {
  return a.model != b.model || a.threads != b.threads || a.context != b.context || a.kv_type != b.kv_type ||
         a.fake_engine != b.fake_engine ||
         a.chunk_reuse != b.chunk_reuse || a.copy_strength != b.copy_strength || a.token_healing != b.token_healing ||
         a.mlock != b.mlock || a.amx != b.amx ||
         a.backend != b.backend || a.backend_url != b.backend_url ||
         a.backend_model != b.backend_model || a.api_key_env != b.api_key_env || a.api_key_file != b.api_key_file ||
         a.prompt_template != b.prompt_template || a.fim_format != b.fim_format || a.backend_timeout_ms != b.backend_timeout_ms;
}

bool language_enabled(const Options& o, std::string_view language_id) {
  return o.languages.empty() || std::find(o.languages.begin(), o.languages.end(), language_id) != o.languages.end();
}

}  // namespace wafer
