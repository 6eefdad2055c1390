// The token file of a listening daemon (`wafer lsp --listen`): either the user's own
// (--token-file, which must not be readable by others) or a fresh random token written to
// a file only the user may read, in the cache folder. The token's wire form is in
// server/lsp/listen_token.h.
#pragma once

#include <filesystem>
#include <string>

#include "engine/base/result.h"

namespace wafer {

struct ListenToken {
  std::string token;
  std::filesystem::path file;
  bool generated = false;  // the daemon wrote the file (and removes it at exit)
};

// Reads the token from `token_file`, or (empty) makes one and writes it to
// <cache>/wafer/lsp-<pid>.token.
Result<ListenToken> load_or_make_listen_token(const std::string& token_file);

}  // namespace wafer
