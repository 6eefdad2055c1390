// The workspace index in the service (index/workspace_index.h, index/index_worker.h):
// which root it indexes, keeping it current, and its definitions as extra-context sources.
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "engine/base/path_utf8.h"
#include "server/platform/platform.h"
#include "server/service/completion_service.h"
#include "server/prompt/prompt_paths.h"

namespace wafer {

namespace fs = std::filesystem;

namespace {

// The path of `uri` relative to `root` ("" when it is not below it).
std::string relative_to(const std::string& root, const std::string& uri) {
  if (!uri.starts_with("file://")) return "";
  return path_below(root, path_from_uri(uri), native_path_style());
}

}  // namespace

FileNameRules native_file_name_rules() {
  return {os::file_names_ignore_case(), native_path_style() == PathStyle::kWindows};
}

void CompletionService::start_index(const std::string& uri) {
  if (!options_.index.enabled || !uri.starts_with("file://")) return;
  std::string root;
  if (!root_uri_.empty()) {
    root = path_from_uri(root_uri_);
  } else {
    root = repository_of(path_from_uri(uri));
    if (root.empty()) return;  // a loose file: no folder worth indexing
  }
  while (root.size() > 1 && (root.back() == '/' || root.back() == static_cast<char>(fs::path::preferred_separator)) &&
         path_from_utf8(root) != path_from_utf8(root).root_path())
    root.pop_back();
  if (root == index_root_) return;
  // A whole disk or home folder is not a workspace: indexing it would read thousands of
  // unrelated files (an editor opened without a folder may send one as its root).
  const std::string home = os::home_dir();
  const auto style = native_path_style();
  if (path_from_utf8(root) == path_from_utf8(root).root_path() ||
      (!home.empty() && same_path(root, utf8_from_path(path_from_utf8(home).lexically_normal()), style))) {
    log_.info("workspace index: not indexing " + root + " (not a project folder)");
    return;
  }
  // A listening daemon's client indexes only inside the folders its owner allows.
  if (Status st = check_allowed_root(options_.index.allowed, root); !st) {
    if (refused_root_ != root) log_.warn("workspace index: not indexing: " + st.error().message);
    refused_root_ = root;
    return;
  }
  index_root_ = root;
  if (!index_worker_)
    index_worker_ = std::make_unique<IndexWorker>(loop_, [this](std::shared_ptr<const WorkspaceIndex> index, double ms) {
      const bool first = !index_ || index_->root() != index->root();
      index_ = std::move(index);
      ++index_generation_;
      if (index_->counts().limit_skipped > 0 && !limit_logged_) {
        limit_logged_ = true;
        log_.warn("workspace index: at its limit (" + std::to_string(options_.index.max_files) + " files, " +
                  std::to_string(options_.index.max_bytes >> 20) +
                  " MiB of source: --max-index-files, --max-index-mib, indexMaxFiles); files past it are left out");
      }
      if (first) {
        index_build_ms_ = ms;
        const WorkspaceIndex::Counts& c = index_->counts();
        log_.info("workspace index: " + std::to_string(c.files) + " files, " + std::to_string(c.definitions) +
                  " definitions, " + std::to_string(c.bytes / 1024) + " KiB in " + std::to_string(static_cast<int>(ms)) +
                  " ms (" + index_->root() + (c.truncated ? "; stopped at a limit" : "") + ")");
      }
    });
  refresh_exclusion();  // the root's .waferignore
  build_index();
}

void CompletionService::build_index() {
  if (!index_worker_ || index_root_.empty() || !options_.index.enabled) return;
  IndexLimits limits;
  limits.names = native_file_name_rules();
  limits.max_files = static_cast<size_t>(options_.index.max_files);
  limits.max_total_bytes = options_.index.max_bytes;
  limits.exclusion = exclusion_;
  index_worker_->build(index_root_, limits);
}

void CompletionService::file_changed(const std::string& uri) {
  // The workspace's .waferignore changed: new rules, and the index built with them.
  if (!exclusion_root_.empty() && relative_to(exclusion_root_, uri) == kWaferIgnore) {
    refresh_exclusion();
    build_index();
    return;
  }
  if (!index_worker_ || index_root_.empty()) return;
  const std::string relative = relative_to(index_root_, uri);
  if (!relative.empty()) index_worker_->update(relative);
}

std::vector<ExtraSource> CompletionService::index_sources(const std::vector<std::string>& names, std::string_view language) {
  if (!index_ || !options_.index.enabled) return {};
  std::vector<std::string> open;  // the open documents speak for themselves
  for (const std::string& uri : workspace_.uris()) {
    std::string r = relative_to(index_->root(), uri);
    if (!r.empty()) open.push_back(file_key(r, index_->names()));
  }
  std::sort(open.begin(), open.end());
  std::vector<ExtraSource> sources = index_->sources_for(names, language, open, related_languages);
  // Named as the open documents are (relative to the client's root, if it gave one).
  for (ExtraSource& s : sources) {
    s.path = prompt_path(root_uri_, uri_from_path(index_->root() + "/" + s.path));
    s.kind = "index";
  }
  return sources;
}

}  // namespace wafer
