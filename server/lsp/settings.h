// The daemon's settings are the command-line Options (options.h) overlaid by the client's
// `initializationOptions` and `workspace/didChangeConfiguration` settings, which take
// precedence. The keys (camelCase, all optional), their types and ranges are the rows of
// the settings table with an LSP key (server/config/settings_table.h; `wafer help settings`
// prints them). A settings object may also be nested under "wafer" (as editors send a
// section).
#pragma once

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "server/config/options.h"
#include "server/config/settings_table.h"  // engine_options(), engine_changed()

namespace wafer {

// Applies the keys present in settings to o. On a wrong type or range the error names
// the key and o is left unchanged. Unknown keys are ignored (editors send extra ones).
Status apply_settings(Options& o, const nlohmann::json& settings);


}  // namespace wafer
