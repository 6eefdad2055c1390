#include "engine/decode/fim_tokens.h"

#include <algorithm>

namespace wafer {
namespace {

std::string family_of(std::string_view prefix_text) {
  if (prefix_text == "<|fim_prefix|>") return "qwen";  // also CodeGemma
  if (prefix_text == "<fim_prefix>" || prefix_text == "<fim-prefix>") return "starcoder";
  if (prefix_text == "<｜fim▁begin｜>") return "deepseek";
  if (prefix_text == "▁<PRE>" || prefix_text == "<PRE>") return "codellama";
  return "other";
}

}  // namespace

Result<FimTokens> find_fim_tokens(const Tokenizer& tok) {
  // The tokenizer has already merged metadata ids with llama.cpp's name-based detection
  // (engine/tokenizer/tokenizer_special.cpp), which covers the families above.
  const SpecialTokens& s = tok.special();
  FimTokens f;
  f.prefix = s.fim_pre;
  f.suffix = s.fim_suf;
  f.middle = s.fim_mid;
  f.pad = s.fim_pad;
  f.repo = s.fim_rep;
  f.file_sep = s.fim_sep;
  f.end_of_generation = tok.eog_tokens();
  // Stops llama.cpp's list misses: CodeLlama's ▁<EOT> (older conversions lack eot_token_id)
  // and CodeGemma's file separator.
  for (std::string_view name : {"▁<EOT>", "<|file_separator|>"})
    if (TokenId id = tok.find_token(name); id != kNoToken) f.end_of_generation.push_back(id);
  std::sort(f.end_of_generation.begin(), f.end_of_generation.end());
  f.end_of_generation.erase(std::unique(f.end_of_generation.begin(), f.end_of_generation.end()),
                            f.end_of_generation.end());
  std::string missing;
  if (f.prefix == kNoToken) missing += " prefix";
  if (f.suffix == kNoToken) missing += " suffix";
  if (f.middle == kNoToken) missing += " middle";
  if (!missing.empty())
    return make_error("model has no fill-in-the-middle tokens (missing:" + missing +
                      "); inline completion needs a FIM code model such as Qwen2.5-Coder");
  f.family = family_of(tok.token_text(f.prefix));
  return f;
}

std::string describe_fim_tokens(const Tokenizer& tok, const FimTokens& f) {
  auto one = [&](const char* name, TokenId id) {
    if (id == kNoToken) return std::string();
    return std::string(" ") + name + "=" + escape_piece(tok.token_text(id)) + "(" + std::to_string(id) + ")";
  };
  std::string s = f.family + ":" + one("prefix", f.prefix) + one("suffix", f.suffix) + one("middle", f.middle) +
                  one("pad", f.pad) + one("repo", f.repo) + one("file_sep", f.file_sep);
  s += " stop=";
  for (size_t i = 0; i < f.end_of_generation.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(f.end_of_generation[i]);
  }
  return s;
}

}  // namespace wafer
