// Extra context for the prompt: definitions and signatures of the names used near the
// cursor, found with tree-sitter in the other open documents and in the same document
// beyond the window. They go before the FIM prefix, one ContextFile per file (its path
// and the snippets; the FIM template decides how a file is introduced), in a stable order
// (by URI, then by position), within their own token budget, and never repeating what the
// window already shows. The daemon keeps a choice while the window's start stays put
// (the completion service keeps it per document), so that the prompt's start does not change while the user types.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/types.h"
#include "grammars/language_rules.h"
#include "server/document/documents.h"
#include "server/document/syntax.h"

namespace wafer {

// One definition found in a document.
struct Definition {
  std::string name;
  size_t start = 0, end = 0;  // byte range of the whole definition
  std::string snippet;        // the definition (small ones) or its signature (header up to the body)
};

// The definitions of a document: top level and members of classes, namespaces, impls ...
// (not the locals inside function bodies). Small definitions (up to max_lines lines) are
// kept whole, larger ones as their header up to the body.
std::vector<Definition> find_definitions(const Snapshot& s, const TSTree* tree, const grammars::LanguageRules& rules,
                                         size_t max_lines = 12);

// Whether definitions in language a are useful to code in language b (C and C++; the
// JavaScript family; else the same language).
bool related_languages(std::string_view a, std::string_view b);

// Identifiers (3+ characters) in text, for matching against definition names.
std::vector<std::string> identifiers_in(std::string_view text);

struct ExtraSource {
  std::string path;  // the name the prompt shows (see server/prompt/prompt_paths.h)
  const std::vector<Definition>* definitions = nullptr;
  size_t window_begin = 0, window_end = 0;  // the current document: skip what the window shows
  bool current = false;
  const char* kind = "open";  // ContextFile::source of its chunk: "open", "same_file" or "index"
};

// The chunks to place before the prefix, within budget_tokens (estimated). Sources are
// taken in the given order; the caller passes other documents sorted by URI, then the
// current one.
std::vector<ContextFile> build_extra_context(const std::vector<std::string>& referenced,
                                             const std::vector<ExtraSource>& sources, int budget_tokens);

}  // namespace wafer
