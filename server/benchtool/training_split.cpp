#include "server/benchtool/training_split.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "server/pull/sha256.h"

namespace wafer {
namespace {

namespace fs = std::filesystem;

struct Source {
  std::string name;
  fs::path root;
  std::vector<std::string> extensions;
  std::vector<std::string> skip_dirs;   // folder names skipped anywhere below the root
  std::vector<std::string> skip_names;  // file names skipped
};

bool starts_with_folder(const fs::path& file, const fs::path& root, fs::path* rest) {
  auto f = file.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++f)
    if (f == file.end() || *f != *r) return false;
  fs::path tail;
  for (; f != file.end(); ++f) tail /= *f;
  if (tail.empty()) return false;
  *rest = tail;
  return true;
}

// corpus.py's sources, the roots that depend on the machine found from the file itself.
std::vector<Source> sources_for(const fs::path& file) {
  std::vector<Source> out;
  // /usr/lib/python3.N: the standard library of whichever Python ran corpus.py.
  std::vector<fs::path> parts(file.begin(), file.end());
  if (parts.size() > 4 && parts[0] == "/" && parts[1] == "usr" && parts[2] == "lib") {
    const std::string py = parts[3].string();
    if (py.starts_with("python3.") && py.size() > 8 &&
        std::all_of(py.begin() + 8, py.end(), [](char c) { return c >= '0' && c <= '9'; }))
      out.push_back({"python-stdlib", fs::path("/usr/lib") / py, {".py"}, {"site-packages", "dist-packages", "__pycache__"}, {}});
  }
  out.push_back({"numpy", "/usr/lib/python3/dist-packages/numpy", {".py"}, {"__pycache__"}, {}});
  out.push_back({"npm-bundled-with-nodejs", "/usr/lib/node_modules", {".js", ".cjs", ".mjs"}, {"dist"}, {}});
  // The grammars of any checkout: the folder `grammars/node_modules` wherever it is.
  for (size_t i = 0; i + 1 < parts.size(); ++i)
    if (parts[i] == "grammars" && parts[i + 1] == "node_modules") {
      fs::path root;
      for (size_t k = 0; k <= i + 1; ++k) root /= parts[k];
      out.push_back({"tree-sitter-grammars", root, {".js", ".c", ".h", ".cc"},
                     {"prebuilds", "build", "node-addon-api", "node-gyp-build"}, {"parser.c"}});
      break;
    }
  out.push_back({"nlohmann-json", "/usr/include/nlohmann", {".hpp"}, {}, {}});
  out.push_back({"catch2", "/usr/include/catch2", {".hpp"}, {}, {}});
  out.push_back({"libuv-headers", "/usr/include/uv", {".h"}, {}, {}});
  return out;
}

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

}  // namespace

bool training_key_held_out(std::string_view key) {
  Sha256 h;
  h.update(key);
  const std::string hex = h.hex_digest();
  uint64_t first8 = 0;  // big-endian, as int.from_bytes(digest[:8], "big")
  for (size_t i = 0; i < 16; ++i) {
    const char c = hex[i];
    first8 = first8 << 4 | static_cast<uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
  }
  return first8 % 100 < 3;
}

TrainingProvenance training_provenance(const std::filesystem::path& file) {
  for (const Source& s : sources_for(file)) {
    fs::path rest;
    if (!starts_with_folder(file, s.root, &rest)) continue;
    if (!contains(s.extensions, file.extension().string()) || contains(s.skip_names, file.filename().string()))
      return {};
    for (auto d = rest.begin(); std::next(d) != rest.end(); ++d)
      if (contains(s.skip_dirs, d->string())) return {};
    std::string key = s.name + "/" + rest.generic_string();
    const bool held = training_key_held_out(key);
    return {held ? TrainingRole::kHeldOut : TrainingRole::kTrained, std::move(key)};
  }
  return {};
}

}  // namespace wafer
