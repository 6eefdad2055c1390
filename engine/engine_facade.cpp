// The facade's helpers that are not about one loaded model (engine/engine.h): checks of
// setting names, FIM prompts as text, and process-wide status. They keep the server out of
// the engine's inner headers.
#include "engine/engine.h"

#include "engine/compute/kv_cache.h"
#include "engine/decode/fim_template.h"
#include "engine/kernels/kernels.h"
#include "engine/runtime/mapping_guard.h"

namespace wafer {

Status check_kv_type(std::string_view name) {
  if (auto t = parse_kv_type(name); !t) return t.error();
  return {};
}

Status check_fim_format(std::string_view name) {
  if (auto t = parse_fim_template(name); !t) return t.error();
  return {};
}

Result<std::string> render_fim_prompt_text(std::string_view format_name, const CompletionRequest& r) {
  Result<FimTemplate> format = parse_fim_template(format_name);
  if (!format) return format.error();
  FimParts parts;
  parts.extra = &r.extra;
  parts.prefix = r.prefix;
  parts.suffix = r.suffix;
  parts.file_path = r.file_path;
  parts.repo_name = r.repo_name;
  parts.line_comment = r.line_comment;
  return render_fim_text(*format, parts);
}

uint64_t mapped_file_faults() { return mapping_faults(); }

ComputeKernels compute_kernels(bool amx, bool amx_bf16) {
  const kernels::Backend& k = kernels::default_backend(amx, amx_bf16);
  return {std::string(k.name()), k.tuning()};
}

}  // namespace wafer
