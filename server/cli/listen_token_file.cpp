#include "server/cli/listen_token_file.h"

#include <cstdio>
#include <system_error>

#include "engine/base/path_utf8.h"
#include "server/lsp/listen_token.h"
#include "server/platform/platform.h"

namespace wafer {
namespace {

Result<ListenToken> read_token_file(const std::filesystem::path& path) {
  bool exposed = false;
  std::string error;
  if (!os::others_may_access(path, exposed, error)) return make_error("--token-file " + utf8_from_path(path) + ": " + error);
  if (exposed)
    return make_error("--token-file: other users may access " + utf8_from_path(path) +
                      "; make it readable by you only (chmod 600)");
  std::FILE* f = os::open_file(path, "rb");
  if (!f) return make_error("--token-file: cannot open " + utf8_from_path(path));
  std::string text(1024, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  Result<std::string> token = parse_token_text(text);
  if (!token) return make_error("--token-file " + utf8_from_path(path) + ": " + token.error().message);
  return ListenToken{std::move(*token), path, false};
}

Result<ListenToken> write_fresh_token() {
  Result<std::string> token = make_listen_token();
  if (!token) return token.error();
  std::string error;
  std::optional<std::filesystem::path> cache = os::user_cache_dir(error);
  if (!cache) return make_error("cannot write the token file: " + error + " (or pass --token-file)");
  std::filesystem::path dir = *cache / "wafer";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::filesystem::path file = dir / ("lsp-" + std::to_string(os::process_id()) + ".token");
  if (!os::write_private_file(file, *token + "\n", error))
    return make_error("cannot write the token file " + utf8_from_path(file) + ": " + error);
  return ListenToken{std::move(*token), file, true};
}

}  // namespace

Result<ListenToken> load_or_make_listen_token(const std::string& token_file) {
  if (token_file.empty()) return write_fresh_token();
  return read_token_file(path_from_utf8(token_file));
}

}  // namespace wafer
