#include "server/document/workspace.h"

namespace wafer {

Status Workspace::open(const DocumentText& item) {
  if (Status st = docs_.open(item); !st) return st;
  Entry e;
  e.language = detect_language(item.language_id, item.uri);
  if (e.language && syntax_fits(*docs_.get(item.uri))) {
    e.syntax = std::make_unique<SyntaxTree>(*e.language);
    e.syntax->reset(item.text);
  }
  e.uri = item.uri;
  entries_[key(item.uri)] = std::move(e);
  return {};
}

Status Workspace::change(const std::string& uri, int64_t version, const std::vector<TextChange>& changes,
                         PositionEncoding enc) {
  auto it = entries_.find(key(uri));
  if (it == entries_.end()) return make_error("didChange for a document that is not open: " + uri);
  Result<DocumentStore::Applied> applied = docs_.change(uri, version, changes, enc);
  if (!applied) {
    it->second.out_of_sync = true;
    return applied.error();
  }
  Entry& e = it->second;
  if (applied->full_text) e.out_of_sync = false;
  // A whole text decides anew whether the document gets a tree; edits that take it past
  // the limits drop it.
  const Snapshot& s = *applied->snapshot;
  if (applied->full_text) {
    e.syntax.reset();
    if (e.language && syntax_fits(s)) {
      e.syntax = std::make_unique<SyntaxTree>(*e.language);
      e.syntax->reset(s.text);
    }
  } else if (e.syntax && !applied->edits.empty()) {
    if (syntax_fits(s)) e.syntax->update(applied->edits, s.text);
    else e.syntax.reset();
  }
  return {};
}

bool Workspace::close(const std::string& uri) {
  entries_.erase(key(uri));
  return docs_.close(uri);
}

std::optional<Workspace::View> Workspace::get(const std::string& uri) const {
  auto it = entries_.find(key(uri));
  if (it == entries_.end()) return std::nullopt;
  View v;
  v.snapshot = docs_.get(uri);
  v.out_of_sync = it->second.out_of_sync;
  if (it->second.syntax) {
    v.tree = it->second.syntax->snapshot();
    v.language = &it->second.syntax->language();
  }
  return v;
}

int64_t Workspace::version(const std::string& uri) const {
  auto s = docs_.get(uri);
  return s ? s->version : -1;
}

std::vector<std::string> Workspace::uris() const {
  std::vector<std::string> out;
  for (const auto& [k, e] : entries_) out.push_back(e.uri);
  return out;
}

}  // namespace wafer
