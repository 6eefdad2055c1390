// `wafer tokenize MODEL.gguf [--ids|--pieces] [--special] [TEXT]`: the model's tokens for
// TEXT, or for standard input taken byte for byte when TEXT is absent.
//   --ids     one line: " id id id" (each id preceded by a space, exactly like a line of
//             llama.cpp's .out test vectors, so outputs can be compared with diff)
//   --pieces  (default) one token per line: id, a tab, the token's bytes escaped
//   --special recognise special tokens written in the text (<|fim_prefix|>, ...)
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "engine/base/path_utf8.h"
#include "engine/gguf/gguf.h"
#include "engine/tokenizer/tokenizer_gguf.h"
#include "server/cli/commands.h"
#include "server/pull/model_catalog.h"
#include "server/pull/model_choice.h"

namespace wafer {

int run_tokenize(const Options& o) {
  std::vector<std::string> args = o.positional;
  std::string path = o.model;
  if (path.empty() && !args.empty()) {
    path = args.front();
    args.erase(args.begin());
  }
  if (path.empty() || args.size() > 1 || (o.ids && o.pieces)) {
    std::fprintf(stderr, "wafer tokenize: expected MODEL.gguf [--ids|--pieces] [--special] [TEXT] (try 'wafer tokenize --help')\n");
    return kExitUsage;
  }
  std::string text;
  if (!args.empty()) {
    text = args.front();
  } else {
    std::ios::sync_with_stdio(false);
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  Result<std::string> resolved = expand_user_path(path);  // ~ and $VAR, as the daemon's model setting
  if (resolved) resolved = resolve_model_path(*resolved, o.cache_dir);
  if (!resolved) {
    std::fprintf(stderr, "wafer tokenize: %s\n", resolved.error().message.c_str());
    return kExitFailure;
  }
  path = *resolved;
  Result<GgufFile> file = GgufFile::open(path_from_utf8(path));
  if (!file) {
    std::fprintf(stderr, "wafer tokenize: %s\n", file.error().message.c_str());
    return kExitFailure;
  }
  Result<Tokenizer> tok = tokenizer_from_gguf(*file);
  if (!tok) {
    std::fprintf(stderr, "wafer tokenize: %s: %s\n", path.c_str(), tok.error().message.c_str());
    return kExitFailure;
  }
  std::vector<TokenId> ids = tok->encode(text, EncodeOptions{.add_special = false, .parse_special = o.special});
  std::string out;
  if (o.ids) {
    for (TokenId id : ids) out += " " + std::to_string(id);
    out += "\n";
  } else {
    for (TokenId id : ids) {
      std::string_view piece = tok->is_control(id) ? tok->token_text(id) : tok->token_bytes(id);
      out += std::to_string(id) + "\t" + escape_piece(piece) + "\n";
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace wafer
