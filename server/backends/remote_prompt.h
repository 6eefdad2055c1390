// The fill-in-the-middle prompt text sent to an OpenAI-compatible /v1/completions server,
// which, unlike llama.cpp's /infill, applies no template of its own.
//
// By default the text is the model family's own format (the engine's FIM formats
// (render_fim_prompt_text in engine/engine.h), chosen with --fim-format / fimFormat; "auto" means Qwen2.5-Coder's
// spellings, since a remote model's tokens cannot be inspected), extra context included as
// the family does it (Qwen's and StarCoder's repository-level file markers, comment
// headers for the others). For a model wafer has no format for, a custom text template
// (--fim-template / fimTemplate) with the placeholders {prefix}, {suffix} and {extra}
// replaces it; {extra} becomes the extra files, each "<|file_sep|>path\ntext" when the
// template is a Qwen one (it contains "<|fim_prefix|>"), else "path\ntext" and a blank line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"

namespace wafer {

// custom_template empty: the family format.
// format_name: a FIM format name that check_fim_format accepts.
std::string remote_fim_prompt(std::string_view custom_template, std::string_view format_name, const CompletionRequest& r);

// A custom text template filled in; text put in is never scanned for placeholders again.
std::string render_fim_prompt(std::string_view fim_template, std::string_view prefix, std::string_view suffix,
                              const std::vector<ContextFile>& extra);

// The literal marker strings of a prompt format (e.g. "<|fim_middle|>"): a model that
// writes one back did not understand the format.
std::vector<std::string> fim_prompt_markers(std::string_view custom_template, std::string_view format_name);

}  // namespace wafer
