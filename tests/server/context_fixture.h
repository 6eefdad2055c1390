// Test fixture for the context builder and what consumes its cursor facts: a document
// with its tree-sitter tree, and a cursor given by a marker in the text.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <utility>

#include "server/prompt/context.h"
#include "server/document/syntax.h"

namespace wafer::test {

// A document with its tree, as a completion job sees it.
struct Doc {
  std::shared_ptr<const Snapshot> snap;
  std::unique_ptr<SyntaxTree> syntax;
  SharedTree tree;
  const grammars::LanguageRules* rules = nullptr;

  Doc(const std::string& lang, const std::string& text) {
    snap = make_snapshot("file:///x", lang, 1, text);
    if (const grammars::Language* l = grammars::language_by_id(lang)) {
      syntax = std::make_unique<SyntaxTree>(*l);
      syntax->reset(text);
      tree = syntax->snapshot();
      rules = grammars::language_rules(l->name);
    }
  }
  // The cursor at the first occurrence of marker (the marker is removed).
  static std::pair<Doc, size_t> with_cursor(const std::string& lang, std::string text, const std::string& marker = "|") {
    size_t at = text.find(marker);
    REQUIRE(at != std::string::npos);
    text.erase(at, marker.size());
    return {Doc(lang, text), at};
  }
  FimContext context(size_t cursor, const FimWindow& w = {}) const {
    return build_context(*snap, tree.get(), rules, cursor, w);
  }
};

// The cursor facts at the marker.
inline CursorFacts facts_at(const std::string& lang, const std::string& text, const std::string& marker = "|") {
  auto [doc, cursor] = Doc::with_cursor(lang, text, marker);
  return doc.context(cursor).facts;
}

}  // namespace wafer::test

