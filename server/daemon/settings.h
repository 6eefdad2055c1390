// The daemon's settings are the command-line Options (options.h) overlaid by the client's
// `initializationOptions` and `workspace/didChangeConfiguration` settings, which take
// precedence. JSON keys (camelCase), all optional:
//   model, threads, contextLength, debounceMs, maxTokens, prefixLines, suffixLines,
//   windowBytes, prefixTokens, suffixTokens, prefixStepLines, extraTokens, alternatives,
//   alternativesTemperature, alternativesTopP, aheadTokens, warm and mlock (booleans), enabledLanguages (array of
//   languageIds; empty = all),
//   backend ("local" | "llama-server" | "openai"), backendUrl, backendModel, apiKeyEnv, apiKeyFile,
//   backendTimeoutMs, fimTemplate
// A settings object may also be nested under "wafer" (as editors send a section).
#pragma once

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "server/config/options.h"

namespace wafer {

// Applies the keys present in settings to o. On a wrong type or range the error names
// the key and o is left unchanged. Unknown keys are ignored (editors send extra ones).
Status apply_settings(Options& o, const nlohmann::json& settings);

// The engine options implied by the settings, and whether two settings need a reload (of
// the model, or a new remote backend).
EngineOptions engine_options(const Options& o);
bool engine_changed(const Options& a, const Options& b);

// Whether completion is enabled for a languageId.
bool language_enabled(const Options& o, std::string_view language_id);

}  // namespace wafer
