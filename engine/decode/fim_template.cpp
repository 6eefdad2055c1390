#include "engine/decode/fim_template.h"

#include <algorithm>
#include <array>

#include "engine/decode/copy_predictor.h"
#include "engine/gguf/gguf.h"
#include "engine/decode/token_healing.h"

namespace wafer {
namespace {

struct FormatName {
  std::string_view name;
  FimFormat format;
};
constexpr std::array<FormatName, 7> kFormats{{{"auto", FimFormat::kAuto},
                                              {"generic", FimFormat::kGeneric},
                                              {"qwen", FimFormat::kQwen},
                                              {"starcoder", FimFormat::kStarCoder},
                                              {"deepseek", FimFormat::kDeepSeek},
                                              {"codellama", FimFormat::kCodeLlama},
                                              {"codegemma", FimFormat::kCodeGemma}}};

// How each family spells its markers as text ("" = the family has no such marker).
struct Spelling {
  std::string_view prefix, suffix, middle, repo, file_sep;
};
Spelling spelling(FimFormat f) {
  switch (f) {
    case FimFormat::kStarCoder: return {"<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<repo_name>", "<file_sep>"};
    case FimFormat::kDeepSeek: return {"<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>", "", ""};
    case FimFormat::kCodeLlama: return {"<PRE> ", " <SUF>", " <MID>", "", ""};
    case FimFormat::kCodeGemma: return {"<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "", "<|file_separator|>"};
    default: return {"<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|repo_name|>", "<|file_sep|>"};
  }
}

std::string with_newline(std::string_view s) {
  std::string out(s);
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out;
}

TokenId marker_id(const FimTokens& fim, FimMarker m) {
  switch (m) {
    case FimMarker::kPrefix: return fim.prefix;
    case FimMarker::kSuffix: return fim.suffix;
    case FimMarker::kMiddle: return fim.middle;
    case FimMarker::kRepo: return fim.repo;
    case FimMarker::kFileSep: return fim.file_sep;
    case FimMarker::kText: break;
  }
  return kNoToken;
}

}  // namespace

Result<FimTemplate> parse_fim_template(std::string_view name) {
  FimTemplate t;
  std::string_view base = name;
  for (auto [suffix, order] : {std::pair{std::string_view("spm"), FimOrder::kSpm}, {"psm", FimOrder::kPsm}}) {
    if (base == suffix) {
      t.order = order;
      t.order_given = true;
      return t;
    }
    if (base.size() > suffix.size() + 1 && base.ends_with(suffix) && base[base.size() - suffix.size() - 1] == '-') {
      t.order = order;
      t.order_given = true;
      base.remove_suffix(suffix.size() + 1);
      break;
    }
  }
  if (base.empty()) return t;
  for (const FormatName& f : kFormats)
    if (f.name == base) {
      t.format = f.format;
      return t;
    }
  return make_error("unknown FIM template '" + std::string(name) +
                    "' (auto, generic, qwen, starcoder, deepseek, codellama, codegemma; add -spm for SPM order)");
}

std::string fim_template_name(const FimTemplate& t) {
  std::string name = "auto";
  for (const FormatName& f : kFormats)
    if (f.format == t.format) name = std::string(f.name);
  return t.order == FimOrder::kSpm ? name + "-spm" : name;
}

FimOrder preferred_fim_order(const GgufFile& file) {
  auto order = file.get_string(kFimOrderKey);
  return order.ok() && *order == "spm" ? FimOrder::kSpm : FimOrder::kPsm;
}

FimTemplate resolve_fim_template(FimTemplate requested, const FimTokens& fim, const Tokenizer& tokenizer,
                                 FimOrder preferred) {
  if (!requested.order_given) requested.order = preferred;
  // The result is final: building a prompt from it resolves it again (with no preferred
  // order at hand), which must not turn the model's preferred SPM back into PSM.
  requested.order_given = true;
  if (requested.format != FimFormat::kAuto) return requested;
  FimTemplate t = requested;
  if (fim.family == "qwen")
    t.format = tokenizer.find_token("<|file_separator|>") != kNoToken ? FimFormat::kCodeGemma : FimFormat::kQwen;
  else if (fim.family == "starcoder")
    t.format = FimFormat::kStarCoder;
  else if (fim.family == "deepseek")
    t.format = FimFormat::kDeepSeek;
  else if (fim.family == "codellama")
    t.format = FimFormat::kCodeLlama;
  else
    t.format = FimFormat::kGeneric;
  return t;
}

std::vector<FimItem> fim_layout(const FimTemplate& t, FimMarkersPresent present, const FimParts& parts) {
  const FimFormat format = t.format == FimFormat::kAuto ? FimFormat::kGeneric : t.format;
  std::vector<FimItem> out;
  auto text = [&](FimRole role, std::string s) {
    if (!s.empty()) out.push_back({FimMarker::kText, role, std::move(s)});
  };
  auto marker = [&](FimMarker m, FimRole role = FimRole::kFrame) { out.push_back({m, role, {}}); };
  static const std::vector<ContextFile> kNone;
  const std::vector<ContextFile>& extra = parts.extra ? *parts.extra : kNone;
  // Single-file prompts stay plain PSM/SPM (what every FIM model was trained on); the
  // repository form only when there are other files to show.
  const bool files_known = !extra.empty();

  // Headers before the FIM markers: repository name and other files behind file markers.
  bool inline_extra = !extra.empty();  // else: extra files at the start of the prefix
  bool path_in_prefix = false;         // StarCoder2 names the current file after <fim_prefix>
  switch (format) {
    case FimFormat::kGeneric:
    case FimFormat::kQwen:
    case FimFormat::kStarCoder:
      if (!present.file_sep || !files_known) break;
      inline_extra = false;
      if (present.repo && !parts.repo_name.empty()) {
        marker(FimMarker::kRepo);
        text(FimRole::kFrame, std::string(parts.repo_name) + (format == FimFormat::kStarCoder ? "" : "\n"));
      }
      for (const ContextFile& f : extra) {
        marker(FimMarker::kFileSep, FimRole::kExtra);
        text(FimRole::kExtra, f.path + "\n" + with_newline(f.text));
      }
      marker(FimMarker::kFileSep);
      if (format == FimFormat::kStarCoder)
        path_in_prefix = !parts.file_path.empty();
      else if (!parts.file_path.empty())
        text(FimRole::kFrame, std::string(parts.file_path) + "\n");
      break;
    case FimFormat::kCodeGemma:
      if (!present.file_sep || extra.empty()) break;
      inline_extra = false;
      for (const ContextFile& f : extra) {
        text(FimRole::kExtra, f.path + "\n" + with_newline(f.text));
        marker(FimMarker::kFileSep, FimRole::kExtra);
      }
      break;
    default: break;
  }

  auto prefix_body = [&] {
    if (path_in_prefix) text(FimRole::kFrame, std::string(parts.file_path) + "\n");
    if (inline_extra) {
      const std::string comment = parts.line_comment.empty() ? std::string() : std::string(parts.line_comment) + " ";
      for (const ContextFile& f : extra) text(FimRole::kExtra, comment + f.path + "\n" + with_newline(f.text));
      if (!parts.file_path.empty()) text(FimRole::kExtra, comment + std::string(parts.file_path) + "\n");
    }
    text(FimRole::kPrefix, std::string(parts.prefix));
  };
  if (t.order == FimOrder::kPsm) {
    marker(FimMarker::kPrefix);
    prefix_body();
    marker(FimMarker::kSuffix);
    text(FimRole::kSuffix, std::string(parts.suffix));
  } else if (format == FimFormat::kCodeLlama) {  // CodeLlama's SPM: P S suffix M prefix
    marker(FimMarker::kPrefix);
    marker(FimMarker::kSuffix);
    text(FimRole::kSuffix, std::string(parts.suffix));
    marker(FimMarker::kMiddle);
    prefix_body();
    return out;
  } else {
    marker(FimMarker::kSuffix);
    text(FimRole::kSuffix, std::string(parts.suffix));
    marker(FimMarker::kPrefix);
    prefix_body();
  }
  marker(FimMarker::kMiddle);
  return out;
}

std::vector<TokenId> build_fim_prompt(const Tokenizer& tokenizer, const FimTokens& fim, const FimTemplate& t,
                                      const FimParts& parts) {
  return build_fim_prompt_within(tokenizer, fim, t, parts, SIZE_MAX);
}

std::vector<TokenId> build_fim_prompt_within(const Tokenizer& tokenizer, const FimTokens& fim, const FimTemplate& t,
                                             const FimParts& parts, size_t max_tokens, bool* cut,
                                             std::vector<TokenId>* reading, std::string* healed,
                                             std::vector<PromptPart>* layout) {
  if (cut) *cut = false;
  if (healed) healed->clear();
  const FimTemplate resolved = resolve_fim_template(t, fim, tokenizer);
  const std::vector<FimItem> items =
      fim_layout(resolved, {fim.repo != kNoToken, fim.file_sep != kNoToken}, parts);
  const EncodeOptions plain{};  // no BOS, no special-token parsing of user text
  std::vector<std::vector<TokenId>> pieces(items.size());
  const bool bos = tokenizer.add_bos() && tokenizer.special().bos != kNoToken;
  size_t total = bos ? 1 : 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].marker == FimMarker::kText)
      tokenizer.encode(items[i].text, plain, pieces[i]);
    else
      pieces[i].push_back(marker_id(fim, items[i].marker));
    total += pieces[i].size();
  }
  if (reading) {
    reading->clear();
    for (FimRole role : {FimRole::kExtra, FimRole::kSuffix, FimRole::kPrefix})
      for (size_t i = 0; i < items.size(); ++i)
        if (items[i].role == role && items[i].marker == FimMarker::kText) {
          reading->push_back(kCopySeparator);
          reading->insert(reading->end(), pieces[i].begin(), pieces[i].end());
        }
  }
  if (total > max_tokens) {
    if (cut) *cut = true;
    std::vector<TokenId>* prefix = nullptr;
    std::vector<TokenId>* suffix = nullptr;
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i].role == FimRole::kExtra) {
        total -= pieces[i].size();
        pieces[i].clear();
      }
      if (items[i].role == FimRole::kPrefix) prefix = &pieces[i];
      if (items[i].role == FimRole::kSuffix) suffix = &pieces[i];
    }
    const size_t n_prefix = prefix ? prefix->size() : 0, n_suffix = suffix ? suffix->size() : 0;
    if (total > max_tokens) {
      const size_t fixed = total - n_prefix - n_suffix;
      const size_t room = max_tokens > fixed ? max_tokens - fixed : 0;
      const size_t keep_suffix = std::min(n_suffix, std::max(room / 4, room > n_prefix ? room - n_prefix : 0));
      const size_t keep_prefix = std::min(n_prefix, room - keep_suffix);
      if (suffix) suffix->resize(keep_suffix);
      if (prefix) prefix->erase(prefix->begin(), prefix->end() - static_cast<std::ptrdiff_t>(keep_prefix));
    }
  }
  if (healed) {
    // Token healing: the prefix's last token comes back as the first generated one(s).
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i].role != FimRole::kPrefix) continue;
      const std::string_view bytes = pieces[i].empty() ? std::string_view() : healable_bytes(tokenizer, pieces[i].back());
      if (!bytes.empty()) {
        healed->assign(bytes);
        pieces[i].pop_back();
        // The copy predictor's stream ends with the same token: it will be generated again.
        if (reading && !reading->empty()) reading->pop_back();
      }
      break;
    }
  }
  std::vector<TokenId> out;
  out.reserve(std::min(total, max_tokens));
  if (bos) out.push_back(tokenizer.special().bos);
  if (layout) layout->clear();
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (layout && !pieces[i].empty()) {
      if (!layout->empty() && layout->back().role == items[i].role && layout->back().end == out.size())
        layout->back().end += pieces[i].size();
      else
        layout->push_back({items[i].role, out.size(), out.size() + pieces[i].size()});
    }
    out.insert(out.end(), pieces[i].begin(), pieces[i].end());
  }
  return out;
}

std::string render_fim_text(const FimTemplate& t, const FimParts& parts) {
  const Spelling s = spelling(t.format);
  std::string out;
  for (const FimItem& item : fim_layout(t, {!s.repo.empty(), !s.file_sep.empty()}, parts)) {
    switch (item.marker) {
      case FimMarker::kText: out += item.text; break;
      case FimMarker::kPrefix: out += s.prefix; break;
      case FimMarker::kSuffix: out += s.suffix; break;
      case FimMarker::kMiddle: out += s.middle; break;
      case FimMarker::kRepo: out += s.repo; break;
      case FimMarker::kFileSep: out += s.file_sep; break;
    }
  }
  return out;
}

}  // namespace wafer
