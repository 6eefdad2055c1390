#include "server/backends/remote_prompt.h"

namespace wafer {
namespace {

// The prompt with sentinel characters as prefix and suffix, no extra context: whatever
// lies between the sentinels is the format's own text.
constexpr char kPrefixSentinel = '\x01', kSuffixSentinel = '\x02';

}  // namespace

std::string render_fim_prompt(std::string_view tmpl, std::string_view prefix, std::string_view suffix,
                              const std::vector<ContextFile>& extra) {
  const bool qwen = tmpl.find("<|fim_prefix|>") != std::string_view::npos;
  std::string extra_text;
  for (const ContextFile& f : extra) {
    if (qwen) extra_text += "<|file_sep|>";
    extra_text += f.path + "\n" + f.text;
    if (!f.text.ends_with('\n')) extra_text += '\n';
    if (!qwen) extra_text += '\n';
  }
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

std::string remote_fim_prompt(std::string_view custom_template, std::string_view format_name, const CompletionRequest& r) {
  if (!custom_template.empty()) return render_fim_prompt(custom_template, r.prefix, r.suffix, r.extra);
  Result<std::string> text = render_fim_prompt_text(format_name, r);
  return text ? std::move(*text) : std::string();  // names are checked where they are set
}

std::vector<std::string> fim_prompt_markers(std::string_view custom_template, std::string_view format_name) {
  CompletionRequest r;
  r.prefix = std::string(1, kPrefixSentinel);
  r.suffix = std::string(1, kSuffixSentinel);
  const std::string text = remote_fim_prompt(custom_template, format_name, r);
  std::vector<std::string> markers;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != kPrefixSentinel && text[i] != kSuffixSentinel) continue;
    std::string piece = text.substr(start, i - start);
    // Surrounding blanks are the format's but not markers a model would echo as they are.
    size_t b = piece.find_first_not_of(" \n"), e = piece.find_last_not_of(" \n");
    if (b != std::string::npos && e - b + 1 >= 3) markers.push_back(piece.substr(b, e - b + 1));
    start = i + 1;
  }
  for (const std::string& m : std::vector<std::string>(markers))
    if (m.find("<|fim_prefix|>") != std::string::npos) markers.push_back("<|file_sep|>");  // Qwen's repository marker
  return markers;
}

}  // namespace wafer
