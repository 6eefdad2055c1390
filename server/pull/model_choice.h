// Which model serves when the user did not say, and what a model setting means:
//   1. the `model` setting / --model: a path (with `~` and `$VAR` expanded) or a catalogue
//      name looked up in the pull cache;
//   2. else the most capable catalogue model already in the pull cache (`wafer pull`; the
//      catalogue in effect, model_catalog(): $WAFER_CATALOG's when set);
//   3. else the bundled model: share/wafer/models/ next to an installed binary (PREFIX/bin/),
//      models/ in the binary's own folder (the VS Code extension's bin/<platform>-<arch>/,
//      scripts/package.sh), or the source tree's models/ for a binary in a build tree.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/result.h"
#include "server/pull/model_catalog.h"

namespace wafer {

// The file name of the bundled model (models/ in the source tree, share/wafer/models/ installed,
// models/ beside the binary in an editor package).
inline constexpr std::string_view kBundledModelFile = "wafer-tiny-code-q8_0.gguf";
// The model editors suggest to users of the bundled one: the catalogue's (model_catalog()),
// or the built-in catalogue's when $WAFER_CATALOG cannot be read.
std::string suggested_model();
// The arguments of the `wafer pull` that gets it: "NAME", or "NAME --with-draft" when the
// catalogue pairs it with a draft model (faster suggestions, the same text).
std::string suggested_pull();

enum class ModelSource { kSetting, kCache, kBundled };
const char* to_string(ModelSource source);  // "setting", "cache", "bundled"

struct ModelChoice {
  std::string path;  // the file to load
  ModelSource source = ModelSource::kSetting;
  std::string catalogue_name;  // the catalogue name when the file is a catalogue model
};

// Where to look when no model is set. default_model_search() fills it for this process.
struct ModelSearch {
  std::string cache_dir;  // the pull cache; empty: model_cache_dir("") (XDG rules)
  std::vector<std::filesystem::path> bundled;  // candidate files of the bundled model, in order
};
ModelSearch default_model_search(const std::string& cache_dir_override = "");

// `~` or `~/...` at the start becomes $HOME; `$NAME` and `${NAME}` become the variable's
// value. An unset variable (or HOME for `~`) is an error naming it.
Result<std::string> expand_user_path(std::string_view path);

// The model to load for a `model` setting (empty: choose one; see the order above). A
// setting is expanded, then resolved like resolve_model_path(); nothing found anywhere is
// an error saying what to do.
Result<ModelChoice> choose_model(const std::string& setting, const ModelSearch& search);

// The file of a `draftModel` setting for the chosen model: expanded, then resolved like
// resolve_model_path() (a path, or a catalogue name meaning its download); "none": ""
// (no draft model); "" (unset): the catalogue's draft for the chosen catalogue model when
// it is in the pull cache (`wafer pull NAME --with-draft`), else "".
inline constexpr std::string_view kNoDraftModel = "none";
Result<std::string> resolve_draft_model(const std::string& setting, const ModelChoice& chosen,
                                        const ModelSearch& search);
// The catalogue's draft for the chosen catalogue model when a `draftModel` setting of ""
// would use it but it is not in the pull cache (editors offer to pull it); nullopt
// otherwise (a setting, no catalogue name, no draft paired, or pulled already).
std::optional<CatalogModel> draft_to_pull(const std::string& setting, const ModelChoice& chosen,
                                          const ModelSearch& search);

// The chosen model in a few words, "NAME (PATH)", with where it came from and, for the
// bundled model, how to get a better one (for the daemon's message and `wafer complete`).
std::string describe_choice(const ModelChoice& choice, std::string_view model_name);

}  // namespace wafer
