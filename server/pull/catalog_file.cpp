#include "server/pull/catalog_file.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "engine/base/path_utf8.h"

namespace wafer {
namespace {

std::string_view trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while ((i = s.find_first_not_of(" \t\r", i)) != std::string_view::npos) {
    const size_t end = s.find_first_of(" \t\r", i);
    out.push_back(s.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i));
    if (end == std::string_view::npos) break;
    i = end;
  }
  return out;
}

bool lower_hex64(std::string_view s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// The URL's last path segment, without query or fragment.
std::string_view url_file(std::string_view url) {
  std::string_view path = url.substr(url.find("://") + 3);
  path = path.substr(0, path.find_first_of("?#"));
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
}

// One model from a line that is not blank or a comment, or what is wrong with it.
Result<CatalogModel> parse_line(std::string_view line) {
  std::string_view fields = line, license, note;
  if (size_t bar = line.find('|'); bar != std::string_view::npos) {
    fields = line.substr(0, bar);
    std::string_view rest = line.substr(bar + 1);
    const size_t bar2 = rest.find('|');
    license = trim(rest.substr(0, bar2));
    if (bar2 != std::string_view::npos) note = trim(rest.substr(bar2 + 1));
  }
  std::vector<std::string_view> w = words(fields);
  CatalogModel m;
  if (!w.empty() && w.back().starts_with("draft=")) {
    m.draft = w.back().substr(6);
    w.pop_back();
    if (m.draft.empty()) return make_error("draft= needs the name of a model of the file");
  }
  if (w.size() < 4 || w.size() > 5)
    return make_error("expected NAME SIZE SHA256 URL [FILE] [draft=NAME] [| LICENSE [| NOTE]], got " +
                      std::to_string(w.size()) + " field" + (w.size() == 1 ? "" : "s"));
  m.name = w[0];
  if (m.name.find('/') != std::string::npos)  // (a URL or a path would read as one)
    return make_error("the name '" + m.name + "' must not contain '/'");
  const auto [end, ec] = std::from_chars(w[1].data(), w[1].data() + w[1].size(), m.size);
  if (ec != std::errc() || end != w[1].data() + w[1].size() || m.size == 0)
    return make_error("SIZE must be a number of bytes above 0, got '" + std::string(w[1]) + "'");
  m.sha256 = w[2];
  for (char& c : m.sha256)
    if (c >= 'A' && c <= 'F') c = char(c - 'A' + 'a');
  if (!lower_hex64(m.sha256)) return make_error("SHA256 must be 64 hex digits, got '" + std::string(w[2]) + "'");
  m.url = w[3];
  if (!m.url.starts_with("http://") && !m.url.starts_with("https://"))
    return make_error("URL must start with http:// or https://, got '" + m.url + "'");
  m.file = w.size() == 5 ? w[4] : url_file(m.url);
  if (m.file.empty() || m.file.find('/') != std::string::npos || m.file.find('\\') != std::string::npos ||
      !m.file.ends_with(".gguf"))
    return make_error("the file name '" + m.file + "' must be a plain NAME.gguf" +
                      (w.size() == 5 ? "" : " (it comes from the URL's last segment; give FILE after the URL)"));
  m.license = license;
  m.note = note;
  return m;
}

}  // namespace

Result<Catalog> parse_catalog(std::string_view text, const std::string& source) {
  Catalog catalog;
  std::set<std::string> names, files;
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const size_t nl = text.find('\n');
    const std::string_view line = trim(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.empty() || line.front() == '#') continue;
    const std::string where = source + ":" + std::to_string(line_no) + ": ";
    Result<CatalogModel> m = parse_line(line);
    if (!m) return make_error(where + m.error().message);
    if (!names.insert(m->name).second) return make_error(where + "the name '" + m->name + "' is listed twice");
    if (!files.insert(m->file).second) return make_error(where + "the file name '" + m->file + "' is listed twice");
    catalog.models.push_back(std::move(*m));
  }
  if (catalog.models.empty()) return make_error(source + ": no models listed (one per line: NAME SIZE SHA256 URL [FILE])");
  if (Status s = check_drafts(catalog); !s) return make_error(source + ": " + s.error().message);
  // The first model that drafts for no other: a draft is listed early (it is the smallest)
  // to draft, not to be offered on its own.
  catalog.suggested = catalog.models.front().name;
  for (const CatalogModel& m : catalog.models) {
    const bool drafts = std::any_of(catalog.models.begin(), catalog.models.end(),
                                    [&](const CatalogModel& other) { return other.draft == m.name; });
    if (!drafts) {
      catalog.suggested = m.name;
      break;
    }
  }
  return catalog;
}

Result<Catalog> load_catalog_file(const std::filesystem::path& path) {
  const std::string name = utf8_from_path(path);
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(path, ec)) return make_error(name + ": cannot read the model catalogue");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return make_error(name + ": cannot read the model catalogue");
  return parse_catalog(text.str(), name);
}

}  // namespace wafer
