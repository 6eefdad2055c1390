#include "server/document/document_key.h"

#include "engine/base/utf8.h"

namespace wafer {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decoded(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      const int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

char lower_ascii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

uint32_t fold_codepoint(uint32_t cp) {
  if (cp < 0x80) return cp >= 'A' && cp <= 'Z' ? cp + 0x20 : cp;
  if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 0x20;               // Latin-1
  if (cp >= 0x100 && cp <= 0x137 && cp != 0x130) return cp | 1;               // Latin Extended-A pairs
  if (cp >= 0x139 && cp <= 0x148) return cp % 2 == 1 ? cp + 1 : cp;
  if (cp >= 0x14A && cp <= 0x177) return cp | 1;
  if (cp == 0x178) return 0xFF;
  if (cp >= 0x179 && cp <= 0x17E) return cp % 2 == 1 ? cp + 1 : cp;
  if (cp >= 0x391 && cp <= 0x3AB && cp != 0x3A2) return cp + 0x20;            // Greek
  if (cp >= 0x410 && cp <= 0x42F) return cp + 0x20;                            // Cyrillic
  if (cp >= 0x400 && cp <= 0x40F) return cp + 0x50;
  return cp;
}

// Lower-cases a drive letter at the start of `path` ("C:/x", "/C:/x").
void lower_drive(std::string& path) {
  const size_t at = !path.empty() && path[0] == '/' ? 1 : 0;
  if (path.size() >= at + 2 && path[at + 1] == ':' &&
      ((path[at] >= 'A' && path[at] <= 'Z') || (path[at] >= 'a' && path[at] <= 'z')))
    path[at] = lower_ascii(path[at]);
}

std::string path_key(std::string path, const FileNameRules& rules) {
  if (rules.backslash_is_separator)
    for (char& c : path)
      if (c == '\\') c = '/';
  lower_drive(path);
  return rules.fold_case ? fold_case(path) : path;
}

}  // namespace

std::string fold_case(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto byte = static_cast<unsigned char>(s[i]);
    if (byte < 0x80) {
      out += lower_ascii(s[i]);
      ++i;
      continue;
    }
    size_t len = 1;
    const uint32_t cp = decode_utf8(s.data() + i, s.size() - i, len);
    if (cp == kInvalidCodepoint) out.append(s.substr(i, len));
    else append_utf8(out, fold_codepoint(cp));
    i += len;
  }
  return out;
}

std::string document_key(std::string_view uri, const FileNameRules& rules) {
  constexpr std::string_view kScheme = "file://";
  if (uri.size() < kScheme.size() || fold_case(uri.substr(0, kScheme.size())) != kScheme) return std::string(uri);
  std::string rest = percent_decoded(uri.substr(kScheme.size()));
  if (rules.backslash_is_separator)
    for (char& c : rest)
      if (c == '\\') c = '/';
  // The authority (a UNC server, usually empty) ignores case everywhere.
  const size_t slash = rest.find('/');
  const std::string host = fold_case(std::string_view(rest).substr(0, slash));
  const std::string path = slash == std::string::npos ? "" : rest.substr(slash);
  return std::string(kScheme) + host + path_key(path, rules);
}

std::string file_key(std::string_view path, const FileNameRules& rules) { return path_key(std::string(path), rules); }

}  // namespace wafer
