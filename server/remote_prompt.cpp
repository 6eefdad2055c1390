#include "server/remote_prompt.h"

namespace wafer {

std::string render_fim_prompt(std::string_view tmpl, std::string_view prefix, std::string_view suffix,
                              const std::vector<std::string>& extra) {
  const bool qwen = tmpl.find("<|fim_prefix|>") != std::string_view::npos;
  std::string extra_text;
  for (const std::string& chunk : extra) {
    if (qwen) extra_text += "<|file_sep|>";
    extra_text += chunk;
    if (!chunk.ends_with('\n')) extra_text += '\n';
    if (!qwen) extra_text += '\n';
  }
  // One left-to-right pass over the template only: text put in is never scanned again.
  std::string out;
  out.reserve(tmpl.size() + prefix.size() + suffix.size() + extra_text.size());
  for (size_t i = 0; i < tmpl.size();) {
    auto take = [&](std::string_view name, std::string_view value) {
      if (tmpl.substr(i, name.size()) != name) return false;
      out += value;
      i += name.size();
      return true;
    };
    if (take("{prefix}", prefix) || take("{suffix}", suffix) || take("{extra}", extra_text)) continue;
    out += tmpl[i++];
  }
  return out;
}

}  // namespace wafer
