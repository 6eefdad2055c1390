// libFuzzer target for the daemon as a whole: bytes go through the Content-Length decoder
// into a real LspServer (protocol layer, documents, syntax, context builder, scheduler and
// its engine thread) whose engine is the scripted fake engine, on a real libuv loop. Run:
// bench/fuzz.sh fuzz_lsp SECONDS.
//
// Input: the first byte holds flags, the rest is the client's byte stream.
//   bit 0: the rest is "one JSON body per line", framed by the harness (so mutations of
//          the JSON are not lost to a wrong Content-Length); else raw bytes, framing too;
//   bit 1: before the input, the harness sends initialize (+ initialized) and opens two
//          documents, so the fuzzer starts deep inside a session;
//   bit 2: offer utf-8 positions in that initialize;  bit 3: offer work-done progress;
//   bits 4-5: debounce 0, 1, 3 or 0 ms.
// Besides memory safety and undefined behaviour, it checks the daemon's promises: every
// reply is valid JSON-RPC, and every request id gets exactly as many replies as requests
// were sent with it (one each), including requests still running at end of input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>
#include <uv.h>

#include "server/lsp/framing.h"
#include "server/lsp/jsonrpc.h"
#include "server/daemon/log.h"
#include "server/daemon/lsp_server.h"
#include "tests/support/fixtures/fake_engine.h"

namespace fuzz_lsp {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_lsp: promise broken: %s\n", what.c_str());
  std::abort();
}

// The fake engine's script, written once per process (the server loads it by path).
const std::string& script_path() {
  static const std::string path = [] {
    auto p = std::filesystem::temp_directory_path() / ("wafer-fuzz-lsp-" + std::to_string(getpid()) + ".json");
    std::FILE* f = std::fopen(p.c_str(), "w");
    if (!f) fail("cannot write the fake engine script");
    std::fputs(R"js({"text": "value = compute(x)\n    return value\n", "chunk_bytes": 3,
                   "rules": [{"prefix_ends_with": "(", "text": "a, b)"}], "echo_prefix_tail": 4})js", f);
    std::fclose(f);
    // Removed at exit through a copy that outlives the function-local string.
    static char* to_remove = strdup(p.c_str());
    std::atexit([] { std::remove(to_remove); });
    return p.string();
  }();
  return path;
}

std::string prelude(uint8_t flags) {
  json caps = json::object();
  if (flags & 4) caps["general"] = {{"positionEncodings", {"utf-8", "utf-16"}}};
  if (flags & 8) caps["window"] = {{"workDoneProgress", true}};
  auto frame = [](const json& m) { return wafer::encode_frame(m.dump()); };
  auto open = [](const char* uri, const char* lang, const char* text) {
    return json{{"jsonrpc", "2.0"},
                {"method", "textDocument/didOpen"},
                {"params", {{"textDocument", {{"uri", uri}, {"languageId", lang}, {"version", 1}, {"text", text}}}}}};
  };
  return frame({{"jsonrpc", "2.0"}, {"id", 1000000}, {"method", "initialize"}, {"params", {{"capabilities", caps}}}}) +
         frame({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", json::object()}}) +
         frame(open("file:///a.py", "python", "def f(x):\n    y = x + 1\n    \n\nclass C:\n    pass\n")) +
         frame(open("file:///b.rs", "rust", "fn main() {\n    let s = \"\xc3\xa9\xf0\x9f\x98\x80\";\n    \n}\n"));
}

// The harness's view of the traffic: requests sent per id, replies received per id.
struct Ledger {
  std::map<std::string, int> requests, replies;

  void client_sent(std::string_view body) {
    wafer::jsonrpc::ParseResult r = wafer::jsonrpc::parse_message(body);
    if (r.message && r.message->kind == wafer::jsonrpc::Message::Kind::kRequest)
      ++requests[wafer::jsonrpc::serialize(r.message->id)];
    else if (!r.message && !r.error_id.is_null())
      ++requests[wafer::jsonrpc::serialize(r.error_id)];  // answered with an error, by id
  }
  void server_sent(const std::string& body) {
    json m = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (!m.is_object() || m.value("jsonrpc", "") != "2.0") fail("not a JSON-RPC 2.0 message: " + body);
    if (m.contains("method")) return;  // a notification or the server's own request
    if (!m.contains("id") || m.contains("result") == m.contains("error")) fail("malformed reply: " + body);
    if (!m["id"].is_null()) ++replies[wafer::jsonrpc::serialize(m["id"])];
  }
  void check() const {
    for (const auto& [id, n] : requests) {
      auto it = replies.find(id);
      int got = it == replies.end() ? 0 : it->second;
      if (got != n) fail("id " + id + ": " + std::to_string(n) + " request(s), " + std::to_string(got) + " replies");
    }
    for (const auto& [id, n] : replies)
      if (!requests.count(id)) fail("a reply to id " + id + ", which was never sent");
  }
};

int run_one(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t flags = data[0];
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  static const int debounce[] = {0, 1, 3, 0};

  uv_loop_t loop;
  uv_loop_init(&loop);
  static wafer::Logger log("/dev/null");
  wafer::Options options;
  wafer::install_fake_engine();
  options.fake_engine = script_path();
  options.debounce_ms = debounce[(flags >> 4) & 3];
  Ledger ledger;
  bool exited = false;
  wafer::LspServer::Hooks hooks;
  hooks.send = [&](std::string body) { ledger.server_sent(body); };
  hooks.exit = [&](int) { exited = true; };
  {
    wafer::LspServer server(&loop, options, std::move(hooks), log);
    wafer::FrameDecoder decoder(1 << 20);
    std::vector<wafer::FrameEvent> events;
    auto deliver = [&] {
      for (wafer::FrameEvent& e : events) {
        if (exited) break;
        if (e.kind == wafer::FrameEvent::Kind::kError) {
          server.framing_error(e.body);
          continue;
        }
        ledger.client_sent(e.body);
        server.receive(e.body);
        uv_run(&loop, UV_RUN_NOWAIT);  // let engine results interleave with input
      }
      events.clear();
    };
    if (flags & 2) {
      decoder.feed(prelude(flags), events);
      deliver();
    }
    if (flags & 1) {
      size_t start = 0;
      while (start <= input.size() && !exited) {
        size_t nl = input.find('\n', start);
        if (nl == std::string_view::npos) nl = input.size();
        std::string_view line = input.substr(start, nl - start);
        if (!line.empty()) decoder.feed(wafer::encode_frame(line), events);
        deliver();
        start = nl + 1;
      }
    } else {
      // A few reads of arbitrary sizes, as a pipe delivers them.
      size_t pos = 0, step = 1 + input.size() / 3;
      while (pos < input.size() && !exited) {
        decoder.feed(input.substr(pos, step), events);
        deliver();
        pos += step;
      }
    }
    if (!exited) server.input_closed(decoder.mid_message(), decoder.describe_pending());
    if (!exited) fail("end of input did not end the session");
    uv_run(&loop, UV_RUN_DEFAULT);  // cancelled jobs answer; the scheduler's handles close
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  if (uv_loop_close(&loop) != 0) fail("handles left open on the loop");
  ledger.check();
  return 0;
}

}  // namespace fuzz_lsp

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fuzz_lsp::run_one(data, size); }
