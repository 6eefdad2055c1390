#include "server/service/scripted_engine.h"

#include <atomic>

namespace wafer {
namespace {
std::atomic<ScriptedEngineFactory> g_factory{nullptr};
}  // namespace

void install_scripted_engine(ScriptedEngineFactory factory) { g_factory.store(factory); }

ScriptedEngineFactory scripted_engine_factory() { return g_factory.load(); }

Result<std::shared_ptr<Engine>> make_scripted_engine(const std::string& script_path) {
  ScriptedEngineFactory f = g_factory.load();
  if (!f)
    return make_error("--fake-engine is for wafer's own tests: this binary has no scripted engine "
                      "(use wafer-scripted from the build tree, or --model PATH)");
  return f(script_path);
}

}  // namespace wafer
