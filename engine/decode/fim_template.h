// The fill-in-the-middle prompt template: turns the text parts of a completion request
// (extra context files, prefix, suffix, the file's path) into what a code model family was
// trained on. Special tokens come only from the template; user text is encoded with
// special-token parsing off, so code that happens to contain "<|fim_prefix|>" stays text.
//
// Formats (P = prefix marker, S = suffix marker, M = middle marker):
//   qwen       [<|repo_name|>name\n] (<|file_sep|>path\ntext)* <|file_sep|>path\n  P prefix S suffix M
//   starcoder  [<repo_name>name] (<file_sep>path\ntext)* <file_sep>  P path\n prefix S suffix M
//   codegemma  (path\ntext <|file_separator|>)*  P prefix S suffix M
//   deepseek / codellama / models without a file separator: the extra files go at the start
//              of the prefix, each under a line comment naming its path.
//   generic    the qwen form with whatever markers the model's metadata names.
// The repository/file headers are used only when there are extra files (a single-file
// prompt is the plain form every FIM model was trained on). Order PSM (prefix first) or SPM: llama.cpp's `spm_infill` order
// "S suffix P prefix M", and for CodeLlama its own "P S suffix M prefix". In SPM order a
// keystroke changes only the end of the prompt, so everything before it stays in the KV
// cache; use it with models trained on it (StarCoder, CodeLlama, wafer's bundled model).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/types.h"
#include "engine/decode/fim_tokens.h"
#include "engine/base/result.h"
#include "engine/tokenizer/tokenizer.h"

namespace wafer {

enum class FimFormat { kAuto, kGeneric, kQwen, kStarCoder, kDeepSeek, kCodeLlama, kCodeGemma };
enum class FimOrder { kPsm, kSpm };

struct FimTemplate {
  FimFormat format = FimFormat::kAuto;
  FimOrder order = FimOrder::kPsm;
  bool order_given = false;  // the name said -spm/-psm; else the model's preferred order applies
};

// The metadata key a model file uses to say which order it was mostly trained on ("spm" or
// "psm"); wafer's bundled model sets it to "spm". Absent: PSM, the order every FIM model knows.
inline constexpr std::string_view kFimOrderKey = "wafer.fim_order";

// "auto" (or ""), "generic", "qwen", "starcoder", "deepseek", "codellama", "codegemma",
// each optionally followed by "-spm" or "-psm"; "spm"/"psm" alone keep the format automatic.
Result<FimTemplate> parse_fim_template(std::string_view name);
std::string fim_template_name(const FimTemplate& t);

// The format for kAuto, from the family of the model's FIM tokens (CodeGemma shares
// Qwen's marker names and is told apart by its <|file_separator|> token); the order, unless
// the name gave one, is the model's preferred order (`preferred_fim_order`).
FimTemplate resolve_fim_template(FimTemplate requested, const FimTokens& fim, const Tokenizer& tokenizer,
                                 FimOrder preferred = FimOrder::kPsm);

class GgufFile;
// The order named by the model file's kFimOrderKey; PSM when absent or not "spm".
FimOrder preferred_fim_order(const GgufFile& file);

struct FimParts {
  const std::vector<ContextFile>* extra = nullptr;  // files placed before the current one
  std::string_view prefix;
  std::string_view suffix;
  std::string_view file_path;            // the current file ("" unknown)
  std::string_view repo_name;            // the workspace's name ("" unknown)
  std::string_view line_comment = "#";   // for path lines in formats without file markers
};

// The prompt as a sequence of markers and texts, before tokenization.
enum class FimMarker : uint8_t { kText, kPrefix, kSuffix, kMiddle, kRepo, kFileSep };
enum class FimRole : uint8_t { kFrame, kExtra, kPrefix, kSuffix };  // what may be cut to fit
struct FimItem {
  FimMarker marker = FimMarker::kText;
  FimRole role = FimRole::kFrame;
  std::string text;  // kText only
};
struct FimMarkersPresent {
  bool repo = false;
  bool file_sep = false;
};
std::vector<FimItem> fim_layout(const FimTemplate& t, FimMarkersPresent present, const FimParts& parts);

// The prompt tokens (a resolved template; kAuto is resolved here too).
std::vector<TokenId> build_fim_prompt(const Tokenizer& tokenizer, const FimTokens& fim, const FimTemplate& t,
                                      const FimParts& parts);

// The same prompt cut to at most max_tokens tokens when it is longer (a window the caller
// sized by an estimate can still overflow a small model's context): extra files go first,
// then the suffix keeps at most a quarter of the room (cut at its end), and the prefix
// keeps its end (cut at its start: the text nearest the cursor matters most). Markers and
// headers are always kept; `cut` (optional) is set when anything was dropped. `reading`
// (optional) receives the texts' tokens before any cut, in an order the completion
// continues: extra files, the suffix, then the prefix last, each text after a
// kCopySeparator (the copy predictor's stream, engine/decode/copy_predictor.h).
// `healed` (optional) asks for token healing (engine/decode/token_healing.h): when the prefix's
// last token is healable it is left off the prompt (and off `reading`) and its bytes are
// written there (else it is cleared) -- the decode loop must then regenerate those bytes first.
// `layout` (optional) receives where each part of the prompt lies, in order.
struct PromptPart {
  FimRole role = FimRole::kFrame;
  size_t begin = 0, end = 0;  // token range in the prompt
};
std::vector<TokenId> build_fim_prompt_within(const Tokenizer& tokenizer, const FimTokens& fim, const FimTemplate& t,
                                             const FimParts& parts, size_t max_tokens, bool* cut = nullptr,
                                             std::vector<TokenId>* reading = nullptr, std::string* healed = nullptr,
                                             std::vector<PromptPart>* layout = nullptr);

// The prompt as text with the family's marker spellings, for servers that take a prompt
// string (OpenAI-compatible /v1/completions). kAuto and kGeneric use Qwen's spellings.
std::string render_fim_text(const FimTemplate& t, const FimParts& parts);

}  // namespace wafer
