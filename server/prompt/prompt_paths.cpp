#include "server/prompt/prompt_paths.h"

#include <filesystem>

namespace wafer {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string path_from_uri(std::string_view uri) {
  if (!uri.starts_with("file://")) return std::string(uri);
  uri.remove_prefix(7);
  std::string out;
  out.reserve(uri.size());
  for (size_t i = 0; i < uri.size(); ++i) {
    int hi = -1, lo = -1;
    if (uri[i] == '%' && i + 2 < uri.size() && (hi = hex_value(uri[i + 1])) >= 0 && (lo = hex_value(uri[i + 2])) >= 0) {
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

std::string prompt_path(std::string_view root_uri, std::string_view document_uri) {
  std::string path = path_from_uri(document_uri);
  if (root_uri.empty()) return path;
  std::string root = path_from_uri(root_uri);
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  if (path.size() > root.size() + 1 && path.starts_with(root) && path[root.size()] == '/')
    return path.substr(root.size() + 1);
  return path;
}

std::string repo_name_of(std::string_view root_uri) {
  std::string root = path_from_uri(root_uri);
  while (!root.empty() && root.back() == '/') root.pop_back();
  const size_t slash = root.rfind('/');
  return slash == std::string::npos ? root : root.substr(slash + 1);
}

std::string uri_from_path(std::string_view path) {
  static const char* hex = "0123456789ABCDEF";
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(std::filesystem::path(path), ec);
  std::string uri = "file://";
  for (unsigned char c : ec ? std::string(path) : abs.lexically_normal().string()) {
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

std::string repository_of(std::string_view file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path abs = fs::absolute(fs::path(file), ec).lexically_normal();
  for (fs::path dir = abs.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / ".git", ec)) return dir.string();
    if (dir == dir.root_path()) break;
  }
  return "";
}

std::string workspace_root_of(std::string_view file) {
  std::string repo = repository_of(file);
  if (!repo.empty()) return repo;
  std::error_code ec;
  return std::filesystem::absolute(std::filesystem::path(file), ec).lexically_normal().parent_path().string();
}

}  // namespace wafer
