// libFuzzer target for the first bytes a TCP client sends a listening daemon: the token
// line (server/lsp/listen_token.h). Checks, besides memory safety, that the verdict does
// not depend on how the bytes are split into reads, and that only the exact token line
// is accepted.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/lsp/listen_token.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wafer;
  if (size == 0) return 0;
  static const std::string kToken = "0123456789abcdef";
  size_t cut = data[0] % size;  // the first byte chooses where to split the rest
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  cut = cut > bytes.size() ? bytes.size() : cut;

  TokenCheck whole(kToken), split(kToken);
  whole.feed(bytes);
  split.feed(bytes.substr(0, cut));
  split.feed(bytes.substr(cut));
  if (whole.state() != split.state() || whole.reason() != split.reason()) __builtin_trap();
  // Accepted in the first read, the split check keeps only that read's rest: a prefix.
  if (whole.state() == TokenCheck::State::kAccepted && !whole.rest().starts_with(split.rest())) __builtin_trap();
  const std::string line = std::string(kTokenLinePrefix) + kToken;
  const bool exact = bytes.starts_with(line + "\n") || bytes.starts_with(line + "\r\n");
  if ((whole.state() == TokenCheck::State::kAccepted) != exact) __builtin_trap();
  if (exact && whole.rest() != bytes.substr(bytes.find('\n') + 1)) __builtin_trap();
  return 0;
}
