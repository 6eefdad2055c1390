// A model catalogue in a file ($WAFER_CATALOG), replacing the built-in one: for teams that
// serve models from a mirror of their own. Plain text, one model per line:
//
//   # NAME  SIZE  SHA256  URL  [FILE]  [draft=NAME]  [| LICENSE [| NOTE]]
//   team-coder-1.5b  1646573056  29871c94...2832  https://models.example/coder-1.5b.gguf
//   team-coder-7b    8098525600  0ef48dc9...aaf  https://models.example/7b.gguf team-7b.gguf draft=team-coder-1.5b | Apache-2.0 | large
//
// Fields are separated by spaces or tabs; SIZE is in bytes, SHA256 is 64 hex digits, FILE
// (the name in the pull cache) defaults to the URL's last path segment and must end in
// .gguf; `draft=NAME` names another model of the file, of the same vocabulary, that drafts
// for this one (`wafer pull NAME --with-draft` fetches both). After a `|`, the license, and after a second `|`, a note (both free text, shown
// by `wafer pull --list`). Blank lines and lines starting with `#` are skipped. Models are
// listed from the least to the most capable; the first one is the model editors suggest
// to users of the bundled model.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "engine/base/result.h"
#include "server/pull/model_catalog.h"

namespace wafer {

// The catalogue in `text`; an error names `source` and the line ("FILE:LINE: what is wrong").
Result<Catalog> parse_catalog(std::string_view text, const std::string& source);

// parse_catalog() of a file; an unreadable or empty file is an error naming it.
Result<Catalog> load_catalog_file(const std::filesystem::path& path);

}  // namespace wafer
