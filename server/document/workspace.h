// The open documents together with their syntax trees: the one place that keeps text
// (documents.h) and tree-sitter trees (syntax.h) in step. A completion job takes a View —
// an immutable text snapshot plus a tree copy of the same version.
//
// Documents past kSyntaxMaxBytes or kSyntaxMaxLines are kept as plain text, without a tree:
// tree-sitter's incremental reparse of such a file costs a whole parse's time per edit on
// some grammars, all of it on the event loop.
// Their completions then use the text-only rules, as for a language without a grammar.
//
// A change that cannot be applied (bad range) leaves the document "out of sync": the
// client and wafer disagree about its text, so completions for it are refused until the
// client sends the whole text again (didOpen or a full-text change).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/document/documents.h"
#include "server/document/syntax.h"

namespace wafer {

inline constexpr size_t kSyntaxMaxBytes = size_t{2} << 20;
inline constexpr size_t kSyntaxMaxLines = 20000;

// Whether a document is small enough to keep a syntax tree of it.
inline bool syntax_fits(const Snapshot& s) { return s.text.size() <= kSyntaxMaxBytes && s.line_count() <= kSyntaxMaxLines; }

class Workspace {
 public:
  // Documents are found by their key under `rules` (document_key.h).
  explicit Workspace(FileNameRules rules = {}) : docs_(rules) {}

  struct View {
    std::shared_ptr<const Snapshot> snapshot;
    SharedTree tree;                           // null for languages without a grammar
    const grammars::Language* language = nullptr;
    bool out_of_sync = false;
  };

  void set_limits(DocumentLimits limits) { docs_.set_limits(limits); }
  // An error, and nothing opened, past the limits (DocumentStore::open).
  Status open(const DocumentText& item);
  Status change(const std::string& uri, int64_t version, const std::vector<TextChange>& changes, PositionEncoding enc);
  bool close(const std::string& uri);
  // nullopt when the document is not open.
  std::optional<View> get(const std::string& uri) const;
  int64_t version(const std::string& uri) const;  // -1 when not open
  std::vector<std::string> uris() const;          // the open documents as opened, sorted by key
  size_t size() const { return docs_.size(); }

 private:
  struct Entry {
    const grammars::Language* language = nullptr;  // null: no grammar for it
    std::unique_ptr<SyntaxTree> syntax;            // null: no grammar, or too big (syntax_fits)
    bool out_of_sync = false;
    std::string uri;  // as opened
  };
  std::string key(const std::string& uri) const { return document_key(uri, docs_.rules()); }
  DocumentStore docs_;
  std::map<std::string, Entry, std::less<>> entries_;  // by document_key
};

}  // namespace wafer
