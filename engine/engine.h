// The engine facade: with engine/types.h and engine/base/, the only engine headers the
// server includes outside its CLI (tests/layout checks this). An Engine owns a loaded
// model and its sessions; complete() turns a fill-in-the-middle request into streamed
// text. Implementations: the in-process engine (load_engine) and test doubles.
//
// Threading: complete() is called from one engine thread at a time and blocks while it
// works; cancel flags may be set from any thread and are checked between tokens, between
// prefill chunks and after every layer of a prefill chunk.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/base/result.h"
#include "engine/types.h"

namespace wafer {

class Engine {
 public:
  virtual ~Engine() = default;
  virtual const ModelInfo& info() const = 0;
  // Runs to completion on the calling thread, streaming events through on_event; always
  // ends with exactly one kDone or kError event.
  virtual void complete(const CompletionRequest& request, const CompletionCallback& on_event) = 0;
};

// Loads a GGUF model for completion. Errors (missing file, unsupported architecture, no
// FIM tokens) come back as values with a message fit to show a user.
Result<std::unique_ptr<Engine>> load_engine(const EngineOptions& options);

// Checks of setting values that name engine choices, for the server's option and settings
// parsers: an error names the valid choices.
Status check_kv_type(std::string_view name);     // "f16", "f32", "q8_0"
Status check_fim_format(std::string_view name);  // "auto", a family name, optionally "-spm"/"-psm"

// A FIM prompt as text in the named format (as check_fim_format accepts; "auto" is
// Qwen2.5-Coder's), for remote backends that take a prompt string rather than tokens.
Result<std::string> render_fim_prompt_text(std::string_view format_name, const CompletionRequest& request);

// Page faults caught on memory-mapped model files since the process started: a change
// means a model file was truncated or replaced under a loaded model.
uint64_t mapped_file_faults();

// The kernels the local engine runs on this CPU and what they chose by timing themselves
// (for wafer/stats).
struct ComputeKernels {
  std::string name;    // e.g. "avx512-vnni", "avx512-vnni+amx", "scalar"
  std::string tuning;
};
ComputeKernels compute_kernels(bool amx, bool amx_bf16);

}  // namespace wafer
