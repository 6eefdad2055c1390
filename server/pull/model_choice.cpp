#include "server/pull/model_choice.h"

#include <cstdlib>
#include <system_error>

#include "engine/base/path_utf8.h"
#include "server/platform/platform.h"

namespace wafer {
namespace {

namespace fs = std::filesystem;

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

bool name_char(char c) { return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

Result<std::string> env(const std::string& name, std::string_view in) {
  const char* v = std::getenv(name.c_str());
  if (!v) return make_error("cannot expand '" + std::string(in) + "': $" + name + " is not set");
  return std::string(v);
}

// The catalogue's draft for the chosen catalogue model and where the pull cache keeps it
// (pulled or not); nullopt without a catalogue name, a catalogue or a paired draft.
struct PairedDraft {
  CatalogModel model;
  fs::path file;
};
std::optional<PairedDraft> paired_draft(const ModelChoice& chosen, const ModelSearch& search) {
  if (chosen.catalogue_name.empty()) return std::nullopt;
  Result<Catalog> catalog = model_catalog();
  if (!catalog) return std::nullopt;
  const CatalogModel* draft = catalog->draft_of(chosen.catalogue_name);
  Result<fs::path> dir = model_cache_dir(search.cache_dir);
  if (!draft || !dir) return std::nullopt;
  return PairedDraft{*draft, *dir / draft->file};
}

}  // namespace

const char* to_string(ModelSource source) {
  switch (source) {
    case ModelSource::kSetting: return "setting";
    case ModelSource::kCache: return "cache";
    case ModelSource::kBundled: return "bundled";
  }
  return "setting";
}

ModelSearch default_model_search(const std::string& cache_dir_override) {
  ModelSearch s;
  s.cache_dir = cache_dir_override;
  const fs::path exe = os::executable_path();
  if (!exe.empty()) {
    s.bundled.push_back(exe.parent_path().parent_path() / "share" / "wafer" / "models" / kBundledModelFile);
    s.bundled.push_back(exe.parent_path() / "models" / kBundledModelFile);  // a package: models/ beside the binary
  }
#ifdef WAFER_SOURCE_DIR
  s.bundled.push_back(fs::path(WAFER_SOURCE_DIR) / "models" / kBundledModelFile);
#endif
  return s;
}

Result<std::string> expand_user_path(std::string_view in) {
  std::string out;
  size_t i = 0;
  if (!in.empty() && in[0] == '~' && (in.size() == 1 || in[1] == '/')) {
    const std::string home = os::home_dir();
    if (home.empty()) return make_error("cannot expand '" + std::string(in) + "': $HOME is not set");
    out = home;
    i = 1;
  }
  while (i < in.size()) {
    const char c = in[i];
    if (c != '$' || i + 1 == in.size()) {
      out += c;
      ++i;
      continue;
    }
    std::string name;
    size_t next = i + 1;
    if (in[next] == '{') {
      const size_t close = in.find('}', next);
      if (close == std::string_view::npos) return make_error("cannot expand '" + std::string(in) + "': unclosed ${");
      name = in.substr(next + 1, close - next - 1);
      next = close + 1;
    } else {
      while (next < in.size() && name_char(in[next])) name += in[next++];
    }
    if (name.empty()) {  // a lone '$' is kept
      out += c;
      ++i;
      continue;
    }
    Result<std::string> value = env(name, in);
    if (!value) return value.error();
    out += *value;
    i = next;
  }
  return out;
}

Result<std::string> resolve_draft_model(const std::string& setting, const ModelChoice& chosen,
                                        const ModelSearch& search) {
  if (setting == kNoDraftModel) return std::string();
  if (setting.empty()) {
    // The catalogue pairs the model with a draft, and the draft was pulled: use it.
    const std::optional<PairedDraft> draft = paired_draft(chosen, search);
    if (!draft || !is_file(draft->file)) return std::string();
    return utf8_from_path(draft->file);
  }
  Result<std::string> expanded = expand_user_path(setting);
  if (!expanded) return expanded.error();
  return resolve_model_path(*expanded, search.cache_dir);
}

Result<ModelChoice> choose_model(const std::string& setting, const ModelSearch& search) {
  if (!setting.empty()) {
    Result<std::string> expanded = expand_user_path(setting);
    if (!expanded) return expanded.error();
    Result<std::string> path = resolve_model_path(*expanded, search.cache_dir);
    if (!path) return path.error();
    ModelChoice c{*path, ModelSource::kSetting, ""};
    if (Result<Catalog> catalog = model_catalog(); catalog && catalog->find(*expanded)) c.catalogue_name = *expanded;
    return c;
  }
  // The catalogue is ordered from the smallest model to the largest: the last one present
  // is the most capable. A catalogue file that cannot be read is an error, not a silent
  // fallback to another model.
  Result<Catalog> catalog = model_catalog();
  if (!catalog) return catalog.error();
  if (Result<fs::path> dir = model_cache_dir(search.cache_dir); dir) {
    const std::vector<CatalogModel>& models = catalog->models;
    for (auto m = models.rbegin(); m != models.rend(); ++m)
      if (is_file(*dir / m->file)) return ModelChoice{utf8_from_path(*dir / m->file), ModelSource::kCache, m->name};
  }
  for (const fs::path& p : search.bundled)
    if (is_file(p)) return ModelChoice{utf8_from_path(p), ModelSource::kBundled, ""};
  return make_error("no model found: set --model PATH (or the \"model\" setting), or download one with: wafer pull " +
                    suggested_pull());
}

std::optional<CatalogModel> draft_to_pull(const std::string& setting, const ModelChoice& chosen,
                                          const ModelSearch& search) {
  if (!setting.empty()) return std::nullopt;
  std::optional<PairedDraft> draft = paired_draft(chosen, search);
  if (!draft || is_file(draft->file)) return std::nullopt;
  return std::move(draft->model);
}

std::string suggested_model() {
  Result<Catalog> catalog = model_catalog();
  return catalog ? catalog->suggested : std::string(kSuggestedModel);
}

std::string suggested_pull() {
  Result<Catalog> catalog = model_catalog();
  if (!catalog) catalog = builtin_catalog();
  return catalog->suggested + (catalog->draft_of(catalog->suggested) ? " --with-draft" : "");
}

std::string describe_choice(const ModelChoice& c, std::string_view model_name) {
  std::string name = model_name.empty() ? utf8_from_path(path_from_utf8(c.path).filename()) : std::string(model_name);
  std::string s = name + " (" + c.path + ")";
  switch (c.source) {
    case ModelSource::kSetting: break;
    case ModelSource::kCache: s += ", the most capable model in the download cache"; break;
    case ModelSource::kBundled:
      s += ", the tiny model bundled with wafer; for much better suggestions run: wafer pull " + suggested_pull();
      break;
  }
  return s;
}

}  // namespace wafer
