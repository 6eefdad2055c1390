// Placeholder for load_engine until the in-process engine lands: always an error value.
#include "engine/engine.h"

namespace wafer {

Result<std::unique_ptr<Engine>> load_engine(const EngineOptions& options) {
  return make_error("cannot load '" + options.model_path +
                    "': the in-process engine is not implemented yet");
}

}  // namespace wafer
