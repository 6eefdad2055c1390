#include "server/index/workspace_index.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "engine/base/path_utf8.h"
#include "grammars/language_rules.h"
#include "grammars/registry.h"
#include "server/document/documents.h"
#include "server/document/syntax.h"
#include "server/index/gitignore.h"
#include "server/prompt/prompt_paths.h"

namespace wafer {
namespace fs = std::filesystem;

namespace {

// A symlinked file is read only when what it points to is a file inside the workspace that
// the content exclusion keeps: a link must not bring in a file from outside the roots the
// owner allows (~/.ssh/id_rsa as notes.py), nor an excluded file under another name.
// `root` is the workspace folder with its own links resolved (fs::canonical).
bool link_target_allowed(const fs::path& root, const fs::path& link, const ExclusionRules& exclusion) {
  std::error_code ec;
  const fs::path target = fs::canonical(link, ec);
  if (ec || root.empty()) return false;  // empty: the workspace folder could not be resolved
  const std::string relative = path_below(utf8_from_path(root), utf8_from_path(target), native_path_style());
  return !relative.empty() && !exclusion.excluded(relative);
}

bool read_small(const fs::path& p, size_t max_bytes, std::string& out) {
  std::error_code ec;
  const auto size = fs::file_size(p, ec);
  if (ec || size > max_bytes) return false;
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = std::move(ss).str();
  return true;
}

size_t entry_bytes(const IndexedFile& f) {
  size_t n = sizeof(IndexedFile) + f.path.size() + f.language.size();
  for (const Definition& d : f.definitions) n += sizeof(Definition) + d.name.size() + d.snippet.size();
  return n;
}

std::shared_ptr<const IndexedFile> index_text(std::string relative, const grammars::Language& language,
                                              std::string text) {
  auto f = std::make_shared<IndexedFile>();
  f->path = std::move(relative);
  f->language = std::string(language.name);
  f->source_bytes = text.size();
  if (const grammars::LanguageRules* rules = grammars::language_rules(language.name)) {
    SyntaxTree syntax(language);
    syntax.reset(text);
    const SharedTree tree = syntax.snapshot();
    auto snap = make_snapshot("", f->language, 0, std::move(text));
    f->definitions = find_definitions(*snap, tree.get(), *rules);
  }
  return f;
}

// Files read and waiting to be parsed, in walk order.
struct Pending {
  std::string relative;
  const grammars::Language* language;
  std::string text;
};

// Parses a batch on `threads` threads (this one included), appending the results to `out`
// in the batch's order: parsing is most of an index's time, and each file is independent.
void parse_batch(std::vector<Pending>& batch, int threads, std::vector<std::shared_ptr<const IndexedFile>>& out) {
  std::vector<std::shared_ptr<const IndexedFile>> done(batch.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < batch.size();)
      done[i] = index_text(std::move(batch[i].relative), *batch[i].language, std::move(batch[i].text));
  };
  std::vector<std::thread> helpers;
  const int extra = std::min<int>(threads, static_cast<int>(batch.size())) - 1;
  for (int t = 0; t < extra; ++t) helpers.emplace_back(work);
  work();
  for (std::thread& h : helpers) h.join();
  for (auto& f : done) out.push_back(std::move(f));
  batch.clear();
}

const ExclusionRules& exclusion_of(const IndexLimits& limits) {
  static const ExclusionRules builtin;
  return limits.exclusion ? *limits.exclusion : builtin;
}

}  // namespace

std::shared_ptr<const IndexedFile> WorkspaceIndex::index_file(const std::string& root, const std::string& relative,
                                                              const IndexLimits& limits) {
  const grammars::Language* language = grammars::language_by_path(relative);
  const ExclusionRules& exclusion = exclusion_of(limits);
  if (!language || exclusion.excluded(relative)) return nullptr;
  const fs::path file = path_from_utf8(root) / path_from_utf8(relative);
  std::error_code ec;
  if (fs::is_symlink(file, ec) && !link_target_allowed(fs::canonical(path_from_utf8(root), ec), file, exclusion))
    return nullptr;
  std::string text;
  if (!read_small(file, limits.max_file_bytes, text)) return nullptr;
  return index_text(relative, *language, std::move(text));
}

std::shared_ptr<const WorkspaceIndex> WorkspaceIndex::build(const std::string& root, const IndexLimits& limits,
                                                            const std::atomic<bool>* cancel) {
  auto index = std::make_shared<WorkspaceIndex>();
  index->root_ = root;
  index->names_ = limits.names;
  IgnoreRules rules;
  const ExclusionRules& exclusion = exclusion_of(limits);
  size_t entries = 0, total = 0;
  bool full = false;  // a limit is reached: no file is added
  std::optional<fs::path> resolved_root;  // for symlinked files, resolved at the first one
  auto canonical_root = [&]() -> const fs::path& {
    std::error_code ec;
    if (!resolved_root) resolved_root = fs::canonical(path_from_utf8(root), ec);
    return *resolved_root;
  };
  // Depth first, folders in name order, each folder's .gitignore read before its entries.
  struct Folder {
    fs::path path;
    std::string relative;
  };
  std::vector<Folder> stack{{path_from_utf8(root), ""}};
  auto stop = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
  const int threads = limits.threads > 0 ? limits.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  constexpr size_t kBatch = 64;  // files read before they are parsed together
  std::vector<Pending> batch;
  while (!stack.empty() && !stop()) {
    Folder dir = std::move(stack.back());
    stack.pop_back();
    std::string ignore_text;
    if (read_small(dir.path / ".gitignore", 1 << 20, ignore_text)) rules.add(ignore_text, dir.relative);
    std::error_code ec;
    std::vector<fs::directory_entry> here;
    for (fs::directory_iterator it(dir.path, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec))
      here.push_back(*it);
    std::sort(here.begin(), here.end(), [](const auto& a, const auto& b) { return a.path() > b.path(); });
    for (const fs::directory_entry& e : here) {
      if (++entries > limits.max_entries) {
        index->counts_.truncated = true;
        stack.clear();
        break;
      }
      const std::string name = utf8_from_path(e.path().filename());
      const std::string relative = dir.relative.empty() ? name : dir.relative + "/" + name;
      std::error_code tec;
      const bool is_dir = e.is_directory(tec) && !e.is_symlink(tec);  // symlinked folders: not followed
      if (name == ".git" || rules.ignored(relative, is_dir)) {
        ++index->counts_.ignored;
        continue;
      }
      if (exclusion.excluded(relative, is_dir)) {
        ++index->counts_.excluded;
        continue;
      }
      if (is_dir) {
        stack.push_back({e.path(), relative});
        continue;
      }
      if (!e.is_regular_file(tec)) continue;
      const grammars::Language* language = grammars::language_by_path(name);
      if (!language) continue;
      if (e.is_symlink(tec) && !link_target_allowed(canonical_root(), e.path(), exclusion)) {
        ++index->counts_.excluded;
        continue;
      }
      // Full: the rest of the walk only counts what is left out, reading nothing.
      if (full) {
        ++index->counts_.limit_skipped;
        continue;
      }
      std::string text;
      if (!read_small(e.path(), limits.max_file_bytes, text)) {
        ++index->counts_.too_large;
        continue;
      }
      if (index->files_.size() + batch.size() >= limits.max_files || total + text.size() > limits.max_total_bytes) {
        index->counts_.truncated = true;
        ++index->counts_.limit_skipped;
        full = true;
        continue;
      }
      total += text.size();
      batch.push_back({relative, language, std::move(text)});
      if (batch.size() == kBatch) parse_batch(batch, threads, index->files_);
    }
  }
  if (!stop()) parse_batch(batch, threads, index->files_);
  index->finish();
  return index;
}

std::shared_ptr<const WorkspaceIndex> WorkspaceIndex::with_file(const std::string& relative,
                                                                std::shared_ptr<const IndexedFile> file,
                                                                const IndexLimits& limits) const {
  auto next = std::make_shared<WorkspaceIndex>();
  next->root_ = root_;
  next->names_ = names_;
  next->counts_ = counts_;
  next->files_.reserve(files_.size() + 1);
  const std::string key = file_key(relative, names_);
  size_t total = 0;
  for (const auto& f : files_)
    if (file_key(f->path, names_) != key) {
      next->files_.push_back(f);
      total += f->source_bytes;
    }
  if (file && (next->files_.size() >= limits.max_files || total + file->source_bytes > limits.max_total_bytes)) {
    ++next->counts_.limit_skipped;
    next->counts_.truncated = true;
    file = nullptr;
  }
  if (file) next->files_.push_back(std::move(file));
  next->finish();
  return next;
}

void WorkspaceIndex::finish() {
  std::sort(files_.begin(), files_.end(), [](const auto& a, const auto& b) { return a->path < b->path; });
  by_name_.clear();
  counts_.files = files_.size();
  counts_.definitions = 0;
  counts_.bytes = 0;
  counts_.source_bytes = 0;
  for (size_t i = 0; i < files_.size(); ++i) {
    counts_.definitions += files_[i]->definitions.size();
    counts_.source_bytes += files_[i]->source_bytes;
    counts_.bytes += entry_bytes(*files_[i]);
    for (const Definition& d : files_[i]->definitions) by_name_.emplace(d.name, i);
  }
  counts_.bytes += by_name_.size() * (sizeof(std::string) + sizeof(size_t) + 2 * sizeof(void*));
}

std::vector<size_t> WorkspaceIndex::files_defining(const std::vector<std::string>& names) const {
  std::set<size_t> hits;
  for (const std::string& n : names) {
    auto [lo, hi] = by_name_.equal_range(n);
    for (auto it = lo; it != hi; ++it) hits.insert(it->second);
  }
  return {hits.begin(), hits.end()};  // file order: by path
}

}  // namespace wafer
