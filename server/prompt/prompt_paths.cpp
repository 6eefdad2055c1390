#include "server/prompt/prompt_paths.h"

#include <filesystem>

#include "engine/base/path_utf8.h"

namespace wafer {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool is_drive(std::string_view s) {  // "c:" or "C:" at the start
  return s.size() >= 2 && s[1] == ':' && ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'));
}

std::string decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    int hi = -1, lo = -1;
    if (s[i] == '%' && i + 2 < s.size() && (hi = hex_value(s[i + 1])) >= 0 && (lo = hex_value(s[i + 2])) >= 0) {
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Separators as '/', for comparing and cutting.
std::string forward_slashes(std::string_view s, PathStyle style) {
  std::string out(s);
  if (style == PathStyle::kWindows)
    for (char& c : out)
      if (c == '\\') c = '/';
  return out;
}

bool starts_with_dir(std::string_view path, std::string_view root, PathStyle style) {
  if (path.size() <= root.size() + 1 || path[root.size()] != '/') return false;
  return same_path(path.substr(0, root.size()), root, style);
}

}  // namespace

PathStyle native_path_style() {
  return std::filesystem::path::preferred_separator == '\\' ? PathStyle::kWindows : PathStyle::kPosix;
}

std::string path_from_uri(std::string_view uri, PathStyle style) {
  if (!uri.starts_with("file://")) return std::string(uri);
  uri.remove_prefix(7);
  std::string path = decode(uri);
  if (style == PathStyle::kPosix) return path;
  if (path.size() >= 3 && path[0] == '/' && is_drive(std::string_view(path).substr(1))) path.erase(0, 1);  // "/c:/x"
  else if (!path.empty() && path[0] != '/') path = "//" + path;  // "file://server/share": a UNC path
  for (char& c : path)
    if (c == '/') c = '\\';
  return path;
}

std::string path_from_uri(std::string_view uri) { return path_from_uri(uri, native_path_style()); }

bool same_path(std::string_view a, std::string_view b, PathStyle style) {
  if (style == PathStyle::kPosix) return a == b;
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] == '\\' ? '/' : lower(a[i]);
    const char y = b[i] == '\\' ? '/' : lower(b[i]);
    if (x != y) return false;
  }
  return true;
}

std::string path_below(std::string_view root_path, std::string_view path, PathStyle style) {
  const std::string slashed = forward_slashes(path, style);
  std::string root = forward_slashes(root_path, style);
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  return starts_with_dir(slashed, root, style) ? slashed.substr(root.size() + 1) : "";
}

std::string prompt_path(std::string_view root_uri, std::string_view document_uri, PathStyle style) {
  std::string path = path_from_uri(document_uri, style);
  if (root_uri.empty()) return path;
  std::string below = path_below(path_from_uri(root_uri, style), path, style);
  return below.empty() ? path : below;
}

std::string prompt_path(std::string_view root_uri, std::string_view document_uri) {
  return prompt_path(root_uri, document_uri, native_path_style());
}

std::string repo_name_of(std::string_view root_uri) {
  std::string root = forward_slashes(path_from_uri(root_uri), native_path_style());
  while (!root.empty() && root.back() == '/') root.pop_back();
  const size_t slash = root.rfind('/');
  return slash == std::string::npos ? root : root.substr(slash + 1);
}

std::string uri_from_absolute_path(std::string_view path, PathStyle style) {
  static const char* hex = "0123456789ABCDEF";
  std::string p = forward_slashes(path, style);
  std::string uri = "file://";
  if (style == PathStyle::kWindows) {
    if (p.starts_with("//")) {
      p.erase(0, 2);  // UNC: the server is the URI's authority
    } else if (is_drive(p)) {
      p[0] = lower(p[0]);  // as VS Code writes it
      p = "/" + p;
    }
  }
  for (unsigned char c : p) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
                       c == '-' || c == '.' || c == '_' || c == '~';
    if (plain) {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += hex[c >> 4];
      uri += hex[c & 15];
    }
  }
  return uri;
}

std::string uri_from_path(std::string_view path) {
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(path_from_utf8(path), ec);
  return uri_from_absolute_path(ec ? std::string(path) : utf8_from_path(abs.lexically_normal()), native_path_style());
}

std::string repository_of(std::string_view file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path abs = fs::absolute(path_from_utf8(file), ec).lexically_normal();
  for (fs::path dir = abs.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / ".git", ec)) return utf8_from_path(dir);
    if (dir == dir.root_path()) break;
  }
  return "";
}

std::string workspace_root_of(std::string_view file) {
  std::string repo = repository_of(file);
  if (!repo.empty()) return repo;
  std::error_code ec;
  return utf8_from_path(std::filesystem::absolute(path_from_utf8(file), ec).lexically_normal().parent_path());
}

}  // namespace wafer
