// Registry of the languages wafer bundles: their tree-sitter grammar, the LSP languageId
// and the file extensions that select them. Per-language knowledge used for completion
// (block node types, comment tokens, stop rules) is added to the same row by later work.
#pragma once

#include <span>
#include <string_view>

struct TSLanguage;

namespace wafer::grammars {

struct Language {
  std::string_view name;                     // LSP languageId, e.g. "python"
  std::span<const std::string_view> extensions;  // without the dot, e.g. "py"
  const TSLanguage* (*grammar)();            // tree-sitter entry point
};

// Every bundled language, in a stable order.
std::span<const Language> all_languages();

// Lookup by LSP languageId (with common aliases such as "typescriptreact" -> tsx,
// "shellscript" -> bash). Returns nullptr when the language is not bundled.
const Language* language_by_id(std::string_view language_id);

// Lookup by file extension or path ("x.py", "py"); nullptr when unknown.
const Language* language_by_path(std::string_view path);

}  // namespace wafer::grammars
