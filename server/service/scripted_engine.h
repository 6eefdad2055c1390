// The scripted engine that tests drive the daemon with (--fake-engine SCRIPT) is a test
// double: it lives in tests/support/fixtures and is never linked into the shipped `wafer`.
// Test executables (and the `wafer-scripted` binary the integration and editor tests
// start) install its factory here; without one, --fake-engine is a clear error.
#pragma once

#include <memory>
#include <string>

#include "engine/base/result.h"
#include "engine/engine.h"

namespace wafer {

using ScriptedEngineFactory = Result<std::shared_ptr<Engine>> (*)(const std::string& script_path);

void install_scripted_engine(ScriptedEngineFactory factory);
// The installed factory, or nullptr.
ScriptedEngineFactory scripted_engine_factory();

// Builds the scripted engine with the installed factory, or explains that this build has
// none.
Result<std::shared_ptr<Engine>> make_scripted_engine(const std::string& script_path);

}  // namespace wafer
