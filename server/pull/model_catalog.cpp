#include "server/pull/model_catalog.h"

#include "engine/base/path_utf8.h"
#include "server/platform/platform.h"
#include "server/pull/catalog_file.h"

#include <cstdlib>

namespace wafer {
namespace {

// Base (not instruct) Qwen2.5-Coder conversions published by ggml-org: the files llama.cpp's
// FIM presets use. Sizes and digests are those of the Hugging Face LFS objects.
// Ordered from the smallest to the largest. The 0.5B model, of the same vocabulary, drafts
// for the larger ones (speculative decoding: the same text, faster when they agree).
const CatalogModel kCatalog[] = {
    {"qwen2.5-coder-0.5b",
     "https://huggingface.co/ggml-org/Qwen2.5-Coder-0.5B-Q8_0-GGUF/resolve/main/qwen2.5-coder-0.5b-q8_0.gguf",
     "qwen2.5-coder-0.5b-q8_0.gguf", 531068128ULL,
     "d0f8cd6c49bab52a0abdbe47948518b1f4d9b1a8a2a6825099cea31cea10ac56", "Apache-2.0",
     "fastest; completes the current line"},
    {"qwen2.5-coder-1.5b",
     "https://huggingface.co/ggml-org/Qwen2.5-Coder-1.5B-Q8_0-GGUF/resolve/main/qwen2.5-coder-1.5b-q8_0.gguf",
     "qwen2.5-coder-1.5b-q8_0.gguf", 1646573056ULL,
     "29871c94d15727a6e243f79a37113d4ae625a6215b5e800bf41a23af2da32832", "Apache-2.0",
     "recommended on a laptop CPU", "qwen2.5-coder-0.5b"},
    {"qwen2.5-coder-3b",
     "https://huggingface.co/ggml-org/Qwen2.5-Coder-3B-Q8_0-GGUF/resolve/main/qwen2.5-coder-3b-q8_0.gguf",
     "qwen2.5-coder-3b-q8_0.gguf", 3285476160ULL,
     "a522a906e299ed34db738b9626b2cd0da9e446c14674468a22fc2eae3dbd344d", "Qwen Research (non-commercial)",
     "better, slower; note the license", "qwen2.5-coder-0.5b"},
    {"qwen2.5-coder-7b",
     "https://huggingface.co/ggml-org/Qwen2.5-Coder-7B-Q8_0-GGUF/resolve/main/qwen2.5-coder-7b-q8_0.gguf",
     "qwen2.5-coder-7b-q8_0.gguf", 8098525600ULL,
     "0ef48dc94a3c551a6736ac2601de38413dc9aa9318534b16e8baee08290a4aaf", "Apache-2.0",
     "largest; needs ~9 GB of RAM", "qwen2.5-coder-0.5b"},
};
constexpr std::string_view kHuggingFace = "https://huggingface.co";

bool is_hex_digest(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

const CatalogModel* Catalog::find(std::string_view name) const {
  for (const CatalogModel& m : models)
    if (m.name == name) return &m;
  return nullptr;
}

const CatalogModel* Catalog::draft_of(std::string_view name) const {
  const CatalogModel* m = find(name);
  return m && !m->draft.empty() ? find(m->draft) : nullptr;
}

Status check_drafts(const Catalog& catalog) {
  for (const CatalogModel& m : catalog.models) {
    if (m.draft.empty()) continue;
    if (m.draft == m.name) return make_error("the model '" + m.name + "' cannot draft for itself");
    if (!catalog.find(m.draft))
      return make_error("the draft '" + m.draft + "' of '" + m.name + "' is not a model of the catalogue");
  }
  return {};
}

Catalog builtin_catalog() {
  Catalog c;
  c.models.assign(std::begin(kCatalog), std::end(kCatalog));
  c.suggested = kSuggestedModel;
  return c;
}

Status apply_hf_endpoint(Catalog& catalog, std::string_view endpoint) {
  if (endpoint.empty()) return {};
  std::string_view base = endpoint;
  while (base.ends_with('/')) base.remove_suffix(1);
  const size_t scheme = base.find("://");
  if (!(base.starts_with("http://") || base.starts_with("https://")) || base.size() == scheme + 3 ||
      base.find_first_of(" \t?#") != std::string_view::npos)
    return make_error("HF_ENDPOINT: expected a base URL such as https://hf-mirror.com, got '" + std::string(endpoint) + "'");
  for (CatalogModel& m : catalog.models)
    if (m.url.starts_with(std::string(kHuggingFace) + "/")) m.url = std::string(base) + m.url.substr(kHuggingFace.size());
  return {};
}

Result<Catalog> model_catalog() {
  Catalog catalog = builtin_catalog();
  if (const char* file = std::getenv("WAFER_CATALOG"); file && *file) {
    Result<Catalog> loaded = load_catalog_file(path_from_utf8(file));
    if (!loaded) return make_error("WAFER_CATALOG: " + loaded.error().message);
    catalog = std::move(*loaded);
  }
  if (const char* endpoint = std::getenv("HF_ENDPOINT"))
    if (Status s = apply_hf_endpoint(catalog, endpoint); !s) return s.error();
  return catalog;
}

Result<PullTarget> resolve_pull_target(std::string_view arg, std::string_view sha256, const Catalog& catalog) {
  std::string digest;
  for (char c : sha256) digest += (c >= 'A' && c <= 'F') ? char(c - 'A' + 'a') : c;
  if (!digest.empty() && !is_hex_digest(digest))
    return make_error("--sha256: expected 64 hex digits, got '" + std::string(sha256) + "'");

  PullTarget t;
  if (arg.starts_with("http://") || arg.starts_with("https://")) {
    std::string_view path = arg.substr(arg.find("://") + 3);
    path = path.substr(0, path.find_first_of("?#"));
    size_t slash = path.rfind('/');
    std::string_view file = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
    if (file.empty() || file == "." || file == "..")
      return make_error("cannot tell a file name from the URL '" + std::string(arg) + "' (it must end in /NAME.gguf)");
    t.url = arg;
    t.file = file;
  } else {
    if (const CatalogModel* m = catalog.find(arg)) {
      t.url = m->url;
      t.file = m->file;
      t.size = m->size;
      t.sha256 = m->sha256;
    } else {
      std::string names;
      for (const CatalogModel& m : catalog.models) names += (names.empty() ? "" : ", ") + m.name;
      return make_error("unknown model '" + std::string(arg) + "': give an http(s) URL or one of " + names +
                        " (wafer pull --list)");
    }
  }
  if (!digest.empty()) t.sha256 = digest;
  return t;
}

Result<std::filesystem::path> model_cache_dir(const std::string& override_dir) {
  if (!override_dir.empty()) return path_from_utf8(override_dir);
  std::string error;
  if (auto root = os::user_cache_dir(error)) return *root / "wafer" / "models";
  return make_error(error);
}

Result<std::string> resolve_model_path(const std::string& model, const std::string& cache_dir_override) {
  std::error_code ec;
  if (model.empty() || std::filesystem::is_regular_file(path_from_utf8(model), ec)) return model;
  const bool path_like = model.find('/') != std::string::npos || model.ends_with(".gguf");
  Result<Catalog> catalog = model_catalog();
  if (!catalog) {
    if (path_like) return model;  // a path needs no catalogue
    return catalog.error();
  }
  if (const CatalogModel* m = catalog->find(model)) {
    auto dir = model_cache_dir(cache_dir_override);
    if (!dir) return dir.error();
    const std::filesystem::path cached = *dir / m->file;
    if (std::filesystem::is_regular_file(cached, ec)) return utf8_from_path(cached);
    return make_error("model '" + model + "' is not downloaded yet (looked for " + utf8_from_path(cached) +
                      "); run: wafer pull " + model);
  }
  if (path_like) return model;
  return make_error("'" + model + "' is neither a model file nor a catalogue name (wafer pull --list shows the names)");
}

}  // namespace wafer
