// libFuzzer target for the daemon's outside-input parsers: Content-Length framing and
// JSON-RPC message parsing. Checks, besides memory safety, that decoding does not depend
// on how the input is split into reads (the same events whole and split at any point).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "server/lsp/framing.h"
#include "server/lsp/jsonrpc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wafer;
  if (size == 0) return 0;
  size_t cut = data[0] % size;  // the first byte chooses where to split the rest
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  cut = cut > bytes.size() ? bytes.size() : cut;

  FrameDecoder whole(4096), split(4096);
  std::vector<FrameEvent> a, b;
  whole.feed(bytes, a);
  split.feed(bytes.substr(0, cut), b);
  split.feed(bytes.substr(cut), b);
  if (a.size() != b.size()) __builtin_trap();
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].kind != b[i].kind || a[i].body != b[i].body) __builtin_trap();
  if (whole.mid_message() != split.mid_message()) __builtin_trap();

  for (const FrameEvent& e : a) {
    if (e.kind != FrameEvent::Kind::kMessage) continue;
    jsonrpc::ParseResult r = jsonrpc::parse_message(e.body);
    if (r.message) (void)jsonrpc::serialize(r.message->params);
    else (void)jsonrpc::serialize(jsonrpc::make_error(r.error_id, r.error));
  }
  // The raw bytes as one body, too.
  (void)jsonrpc::parse_message(bytes);
  return 0;
}
