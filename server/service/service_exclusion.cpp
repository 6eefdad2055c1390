// Content exclusion in the service (index/exclusion.h): the rules for the workspace folder,
// and which open documents they exclude. What an excluded document may not do is decided
// where it would happen: its edits and yanks stay out of the recent edits
// (completion_service.cpp), its definitions out of other documents' prompts, and its own
// completions get no other file's context and no remote backend (service_completion.cpp).
#include <algorithm>

#include "server/prompt/prompt_paths.h"
#include "server/service/completion_service.h"

namespace wafer {

namespace {

// The path the rules see for a document: relative to the root when below it, else its
// whole path; '/'-separated. "" for a URI that names no file.
std::string rule_path(const std::string& root, const std::string& uri) {
  if (!uri.starts_with("file://")) return "";
  const PathStyle style = native_path_style();
  const std::string path = path_from_uri(uri);
  std::string p = root.empty() ? "" : path_below(root, path, style);
  if (p.empty()) p = path;
  if (style == PathStyle::kWindows) std::replace(p.begin(), p.end(), '\\', '/');
  return p;
}

}  // namespace

void CompletionService::refresh_exclusion() {
  exclusion_root_ = !index_root_.empty() ? index_root_ : root_uri_.empty() ? "" : path_from_uri(root_uri_);
  exclusion_ = std::make_shared<const ExclusionRules>(
      ExclusionRules::load(exclusion_root_, options_.exclusion.user_file, options_.exclusion.patterns));
  excluded_documents_.clear();
  for (const std::string& uri : workspace_.uris()) note_exclusion(uri);
}

std::optional<Exclusion> CompletionService::rules_exclude(const std::string& uri) const {
  const std::string path = rule_path(exclusion_root_, uri);
  if (path.empty()) return std::nullopt;
  return exclusion_->excluded(path);
}

void CompletionService::note_exclusion(const std::string& uri) {
  excluded_documents_.erase(uri);
  std::optional<Exclusion> e = rules_exclude(uri);
  if (!e) return;
  log_.info("excluded from prompts: " + uri + " (" + std::string(to_string(e->source)) + ": " + e->pattern + ")");
  recent_.forget(uri);
  excluded_documents_[uri] = std::move(*e);
}

const Exclusion* CompletionService::excluded(const std::string& uri) const {
  auto it = excluded_documents_.find(uri);
  return it == excluded_documents_.end() ? nullptr : &it->second;
}

bool CompletionService::excluded_may_complete() const {
  return options_.exclusion.complete_excluded && scheduler_->provider() == Scheduler::Provider::kLocalEngine;
}

}  // namespace wafer
