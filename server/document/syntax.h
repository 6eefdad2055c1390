// A tree-sitter syntax tree per document, kept in step with the text: each change is
// applied with ts_tree_edit and the tree is reparsed incrementally (reusing unchanged
// subtrees). The language comes from the LSP languageId, falling back to the file
// extension of the URI. Completion jobs take an immutable copy (ts_tree_copy is cheap
// and makes the copy safe to read on another thread).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "grammars/registry.h"
#include "server/document/documents.h"

struct TSParser;
struct TSTree;

namespace wafer {

// languageId first ("python", "typescriptreact", ...), then the URI's extension.
const grammars::Language* detect_language(std::string_view language_id, std::string_view uri);

// An immutable tree shared with jobs; frees the TSTree with the last owner.
using SharedTree = std::shared_ptr<const TSTree>;

// The tree of a text that is not a document's (yet): `tree`, the tree of the text before
// `edit`, edited and reparsed incrementally on a parser of its own (the document as it
// would be after accepting a suggestion). Null when parsing fails.
SharedTree parse_edited(const grammars::Language& language, const TSTree* tree, const ByteEdit& edit,
                        std::string_view new_text);

class SyntaxTree {
 public:
  explicit SyntaxTree(const grammars::Language& language);
  ~SyntaxTree();
  SyntaxTree(const SyntaxTree&) = delete;
  SyntaxTree& operator=(const SyntaxTree&) = delete;

  const grammars::Language& language() const { return *language_; }
  // Parses text from scratch.
  void reset(std::string_view text);
  // Applies byte edits (in order) to the tree, then reparses new_text incrementally.
  void update(const std::vector<ByteEdit>& edits, std::string_view new_text);

  // A copy of the current tree for a reader on any thread (null if parsing failed).
  SharedTree snapshot() const;
  // The tree as an S-expression (tests, debugging).
  std::string sexp() const;
  bool has_error() const;

 private:
  const grammars::Language* language_;
  TSParser* parser_ = nullptr;
  TSTree* tree_ = nullptr;
};

}  // namespace wafer
