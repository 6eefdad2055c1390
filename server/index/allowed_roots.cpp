#include "server/index/allowed_roots.h"

#include <filesystem>
#include <system_error>

#include "engine/base/path_utf8.h"
#include "server/prompt/prompt_paths.h"

namespace wafer {

namespace fs = std::filesystem;

namespace {

// The path with its symbolic links (of the part that exists) and `..` resolved.
Result<fs::path> resolve(const std::string& text) {
  const fs::path p = path_from_utf8(text);
  if (!p.is_absolute()) return make_error("'" + text + "' is not an absolute path");
  std::error_code ec;
  fs::path r = fs::weakly_canonical(p, ec);
  if (ec) return make_error("cannot resolve '" + text + "': " + ec.message());
  r = r.lexically_normal();
  if (!r.has_filename() && r.has_parent_path()) r = r.parent_path();  // "a/b/" -> "a/b"
  return r;
}

// Compared as the platform compares paths (Windows: either slash, any case).
bool is_below_or_at(const std::string& path, const std::string& root) {
  const PathStyle style = native_path_style();
  return same_path(path, root, style) || !path_below(root, path, style).empty();
}

}  // namespace

Result<std::vector<std::string>> resolve_allowed_roots(const std::vector<std::string>& folders) {
  std::vector<std::string> out;
  for (const std::string& f : folders) {
    Result<fs::path> r = resolve(f);
    if (!r) return make_error("--allow-root: " + r.error().message);
    if (*r == r->root_path()) return make_error("--allow-root: '" + f + "' is the whole file system");
    out.push_back(utf8_from_path(*r));
  }
  return out;
}

Status check_allowed_root(const AllowedRoots& allowed, const std::string& path) {
  if (!allowed.limited) return {};
  Result<fs::path> r = resolve(path);
  if (!r) return make_error("the workspace folder " + r.error().message);
  if (*r == r->root_path()) return make_error("the workspace folder '" + path + "' is the whole file system");
  for (const std::string& root : allowed.roots)
    if (is_below_or_at(utf8_from_path(*r), root)) return {};
  std::string list;
  for (const std::string& root : allowed.roots) list += (list.empty() ? "" : ", ") + root;
  return make_error("the workspace folder '" + path + "'" +
                    (utf8_from_path(*r) == path ? "" : " (" + utf8_from_path(*r) + ")") +
                    " is outside the folders this daemon allows (" + (list.empty() ? "none" : list) +
                    "; its owner sets them with --allow-root)");
}

Status check_allowed_root_uri(const AllowedRoots& allowed, const std::string& uri) {
  if (!allowed.limited) return {};
  if (!uri.starts_with("file://")) return make_error("the workspace folder '" + uri + "' is not a file: URI");
  return check_allowed_root(allowed, path_from_uri(uri));
}

}  // namespace wafer
