// The short model names `wafer pull` knows (a small catalogue of GGUF code models with
// fill-in-the-middle support, their download URLs, sizes and SHA-256 digests), how a
// NAME|URL argument resolves to what to download, and where downloads are cached.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "engine/base/result.h"

namespace wafer {

struct CatalogModel {
  std::string_view name;     // what the user types: "qwen2.5-coder-1.5b"
  std::string_view url;
  std::string_view file;     // name in the cache directory
  uint64_t size;             // bytes
  std::string_view sha256;   // lowercase hex
  std::string_view license;
  std::string_view note;
};

std::span<const CatalogModel> model_catalog();

// What to fetch: a URL, the file name to store it under, and what we know about it.
struct PullTarget {
  std::string url;
  std::string file;
  std::string sha256;        // empty: unknown (only the GGUF header is checked)
  uint64_t size = 0;         // 0: unknown
};

// A catalogue name, or an http(s):// URL whose last path segment (without query) names the
// file; `sha256` (from --sha256) overrides the catalogue's digest when not empty.
Result<PullTarget> resolve_pull_target(std::string_view name_or_url, std::string_view sha256);

// --cache-dir if given, else wafer/models in the user's cache folder (os::user_cache_dir:
// $XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on macOS).
Result<std::filesystem::path> model_cache_dir(const std::string& override_dir);

// What a --model / "model" value names: an existing file as given; else a catalogue name
// ("qwen2.5-coder-1.5b") that `wafer pull` stored in the cache directory; else the value
// unchanged when it looks like a path (the loader then says the file is missing). A
// catalogue name that was not pulled yet, or a bare word that is neither, is an error that
// says what to run.
Result<std::string> resolve_model_path(const std::string& model, const std::string& cache_dir_override);

}  // namespace wafer
