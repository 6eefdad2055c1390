#include "server/document/syntax.h"

#include <cstdlib>

#include <tree_sitter/api.h>

namespace wafer {

namespace {

void apply_edit(TSTree* tree, const ByteEdit& e) {
  TSInputEdit in{};
  in.start_byte = static_cast<uint32_t>(e.start);
  in.old_end_byte = static_cast<uint32_t>(e.old_end);
  in.new_end_byte = static_cast<uint32_t>(e.new_end);
  in.start_point = {e.start_point.row, e.start_point.column};
  in.old_end_point = {e.old_end_point.row, e.old_end_point.column};
  in.new_end_point = {e.new_end_point.row, e.new_end_point.column};
  ts_tree_edit(tree, &in);
}

SharedTree share(TSTree* tree) {
  if (!tree) return nullptr;
  return SharedTree(tree, [](const TSTree* t) { ts_tree_delete(const_cast<TSTree*>(t)); });
}

}  // namespace

const grammars::Language* detect_language(std::string_view language_id, std::string_view uri) {
  if (const grammars::Language* l = grammars::language_by_id(language_id)) return l;
  // "file:///a/b.py?x#y": strip query and fragment before taking the extension.
  std::string_view path = uri.substr(0, uri.find_first_of("?#"));
  size_t slash = path.rfind('/');
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  return grammars::language_by_path(path);
}

SyntaxTree::SyntaxTree(const grammars::Language& language) : language_(&language), parser_(ts_parser_new()) {
  ts_parser_set_language(parser_, language.grammar());
}

SyntaxTree::~SyntaxTree() {
  if (tree_) ts_tree_delete(tree_);
  ts_parser_delete(parser_);
}

void SyntaxTree::reset(std::string_view text) {
  if (tree_) ts_tree_delete(tree_);
  tree_ = ts_parser_parse_string(parser_, nullptr, text.data(), static_cast<uint32_t>(text.size()));
}

void SyntaxTree::update(const std::vector<ByteEdit>& edits, std::string_view new_text) {
  if (!tree_) return reset(new_text);
  for (const ByteEdit& e : edits) apply_edit(tree_, e);
  TSTree* next = ts_parser_parse_string(parser_, tree_, new_text.data(), static_cast<uint32_t>(new_text.size()));
  ts_tree_delete(tree_);
  tree_ = next;
}

SharedTree SyntaxTree::snapshot() const {
  if (!tree_) return nullptr;
  return share(ts_tree_copy(tree_));
}

SharedTree parse_edited(const grammars::Language& language, const TSTree* tree, const ByteEdit& edit,
                        std::string_view new_text) {
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, language.grammar());
  TSTree* old = tree ? ts_tree_copy(tree) : nullptr;
  if (old) apply_edit(old, edit);
  TSTree* next = ts_parser_parse_string(parser, old, new_text.data(), static_cast<uint32_t>(new_text.size()));
  if (old) ts_tree_delete(old);
  ts_parser_delete(parser);
  return share(next);
}

std::string SyntaxTree::sexp() const {
  if (!tree_) return {};
  char* s = ts_node_string(ts_tree_root_node(tree_));
  std::string out(s);
  std::free(s);
  return out;
}

bool SyntaxTree::has_error() const { return tree_ && ts_node_has_error(ts_tree_root_node(tree_)); }

}  // namespace wafer
