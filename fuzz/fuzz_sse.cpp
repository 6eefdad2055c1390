// libFuzzer target for what the remote backends read from an inference server: the
// server-sent-events stream (SseReader), each event's JSON chunk in both wire formats
// (parse_remote_chunk) and error bodies (remote_error_message, remote_fim_unsupported).
//
// Input: the first byte chooses the read sizes (1 + byte % 17, as a socket delivers them),
// the rest is the response body.
// Checks, besides memory safety and undefined behaviour: the events and the bytes left
// pending do not depend on how the body is split into reads; a "[DONE]" event is exactly
// that data; an error message is at most 203 bytes (200 and "...").
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/backends/remote_api.h"

namespace fuzz_sse {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_sse: promise broken: %s\n", what.c_str());
  std::abort();
}

void chunk(const std::string& data) {
  nlohmann::json j = nlohmann::json::parse(data, nullptr, /*allow_exceptions=*/false);
  for (wafer::RemoteApi api : {wafer::RemoteApi::kLlamaCpp, wafer::RemoteApi::kOpenAi}) {
    wafer::RemoteChunk c = wafer::parse_remote_chunk(j, api);
    if (!j.is_object() && (!c.text.empty() || c.last)) fail("a chunk read from JSON that is not an object");
  }
}

int run_one(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t step = 1 + data[0] % 17;
  std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);

  wafer::SseReader whole, split;
  std::vector<wafer::SseEvent> a = whole.feed(body), b;
  for (size_t pos = 0; pos < body.size(); pos += step) {
    std::vector<wafer::SseEvent> got = split.feed(body.substr(pos, step));
    b.insert(b.end(), got.begin(), got.end());
  }
  if (a.size() != b.size()) fail("events depend on how the stream is split");
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].data != b[i].data || a[i].error != b[i].error) fail("event " + std::to_string(i) + " depends on the split");
  if (whole.pending() != split.pending()) fail("pending bytes depend on the split");

  for (const wafer::SseEvent& e : a) {
    if (e.data == "[DONE]") continue;
    if (e.error) {
      if (wafer::remote_error_message(e.data).size() > 203) fail("error message longer than 203 bytes");
      continue;
    }
    chunk(e.data);
  }
  // The body as a whole response (stream off) and as an error body.
  chunk(std::string(body));
  const std::string text(body);
  if (wafer::remote_error_message(text).size() > 203) fail("error message longer than 203 bytes");
  (void)wafer::remote_fim_unsupported(400, text);
  return 0;
}

}  // namespace fuzz_sse

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fuzz_sse::run_one(data, size); }
