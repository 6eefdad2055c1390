// The fill-in-the-middle prompt text sent to an OpenAI-compatible /v1/completions server,
// which, unlike llama.cpp's /infill, applies no template of its own. One small function so
// that the per-model-family templates of engine/fim_template.h can replace it.
//
// The template is text with placeholders: {prefix}, {suffix} and {extra}. {extra} becomes
// the extra context chunks (each a "path" line and then code), each introduced by
// "<|file_sep|>" when the template is a Qwen2.5-Coder one (it contains "<|fim_prefix|>"),
// as Qwen's repository-level format expects, else each followed by a blank line. The
// default is Qwen2.5-Coder's. Placeholders inside the document's own text stay as they are.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wafer {

inline constexpr std::string_view kDefaultFimTemplate = "{extra}<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>";

std::string render_fim_prompt(std::string_view fim_template, std::string_view prefix, std::string_view suffix,
                              const std::vector<std::string>& extra);

}  // namespace wafer
