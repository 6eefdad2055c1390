// The short model names `wafer pull` knows (a small catalogue of GGUF code models with
// fill-in-the-middle support, their download URLs, sizes and SHA-256 digests), how a
// NAME|URL argument resolves to what to download, and where downloads are cached.
//
// The catalogue in effect (model_catalog()) is the built-in one, or the file named by
// $WAFER_CATALOG (a team's own mirror; format in catalog_file.h), with catalogue URLs on
// https://huggingface.co moved to $HF_ENDPOINT when that is set (Hugging Face's convention
// for mirrors, e.g. https://hf-mirror.com).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/result.h"

namespace wafer {

struct CatalogModel {
  std::string name;     // what the user types: "qwen2.5-coder-1.5b"
  std::string url;
  std::string file;     // name in the cache directory
  uint64_t size = 0;    // bytes
  std::string sha256;   // lowercase hex
  std::string license;
  std::string note;
  std::string draft;    // the catalogue model that drafts for this one (draftModel); "" none
};

// Ordered from the least to the most capable model (the pull cache's best is the last one
// present); `suggested` names the model editors offer to users of the bundled one.
struct Catalog {
  std::vector<CatalogModel> models;
  std::string suggested;
  const CatalogModel* find(std::string_view name) const;
  // The model that drafts for the model `name` (draft=), or nullptr: none, or no such model.
  const CatalogModel* draft_of(std::string_view name) const;
};

// An error when a model's draft is not another model of the catalogue.
Status check_drafts(const Catalog& catalog);

// The built-in catalogue's model suggested to users of the bundled one.
inline constexpr std::string_view kSuggestedModel = "qwen2.5-coder-1.5b";

// The catalogue compiled into wafer (URLs on huggingface.co).
Catalog builtin_catalog();

// Catalogue URLs starting with https://huggingface.co/ moved to `endpoint` (an http(s)://
// base URL, a trailing slash ignored); "" changes nothing. A malformed endpoint is an error.
Status apply_hf_endpoint(Catalog& catalog, std::string_view endpoint);

// The catalogue in effect: $WAFER_CATALOG's file when set, else the built-in one; then
// $HF_ENDPOINT applied. Read again on every call (a daemon sees a file edited meanwhile).
// A bad file or endpoint is an error naming it (and the line).
Result<Catalog> model_catalog();

// What to fetch: a URL, the file name to store it under, and what we know about it.
struct PullTarget {
  std::string url;
  std::string file;
  std::string sha256;        // empty: unknown (only the GGUF header is checked)
  uint64_t size = 0;         // 0: unknown
};

// A catalogue name, or an http(s):// URL whose last path segment (without query) names the
// file; `sha256` (from --sha256) overrides the catalogue's digest when not empty.
Result<PullTarget> resolve_pull_target(std::string_view name_or_url, std::string_view sha256,
                                       const Catalog& catalog);

// --cache-dir if given, else wafer/models in the user's cache folder (os::user_cache_dir:
// $XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on macOS).
Result<std::filesystem::path> model_cache_dir(const std::string& override_dir);

// What a --model / "model" value names: an existing file as given; else a catalogue name
// ("qwen2.5-coder-1.5b") that `wafer pull` stored in the cache directory; else the value
// unchanged when it looks like a path (the loader then says the file is missing). A
// catalogue name that was not pulled yet, or a bare word that is neither, is an error that
// says what to run; so is a bad $WAFER_CATALOG when the catalogue has to be consulted.
Result<std::string> resolve_model_path(const std::string& model, const std::string& cache_dir_override);

}  // namespace wafer
