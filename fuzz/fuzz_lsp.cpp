// libFuzzer target for the daemon as a whole: bytes go through the Content-Length decoder
// into a real LspServer (protocol layer, documents, syntax, context builder, scheduler and
// its engine thread) whose engine is the scripted fake engine, on a libuv loop. Run:
// bench/fuzz.sh fuzz_lsp SECONDS.
//
// Input: the first byte holds flags, the rest is the client's byte stream.
//   bit 0: the rest is "one JSON body per line", framed by the harness (so mutations of
//          the JSON are not lost to a wrong Content-Length); else raw bytes, framing too;
//   bit 1: the session starts initialized (utf-8 positions offered per bit 2, work-done
//          progress per bit 3, the model loaded) with two documents open, so the fuzzer
//          starts deep inside a session;  bit 2: offer utf-8 positions;
//   bit 3: offer work-done progress;  bits 4-5: debounce 0, 1, 3 or 0 ms;
//   bit 6: workspace folders only below /w (--allow-root), so initialize and
//          didChangeWorkspaceFolders check every folder the client names.
// Besides memory safety and undefined behaviour, it checks the daemon's promises: every
// reply is valid JSON-RPC, and every request id gets exactly as many replies as requests
// were sent with it (one each), including requests still running at end of input.
//
// Speed: one server per configuration (bits 1-5) lives across inputs, and each input is
// fed through the same entry point the transport uses. After an input the harness puts
// the server back as it found it, through the protocol: $/cancelRequest for every request
// still open (so no debounce is waited for), didClose for every document, then it runs the
// loop until every request has its reply and the scheduler is idle. An input that changes
// what cannot be put back (initialize, initialized, shutdown, exit, settings, trace) or
// that ends in the middle of a message ends its server the old way, with end of input
// (which must exit the session and close every handle); the next input gets a new one.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>
#include <uv.h>

#include "server/lsp/framing.h"
#include "server/lsp/jsonrpc.h"
#include "server/service/log.h"
#include "server/lsp/lsp_server.h"
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
    std::fputs(R"js({"text": "value = compute(x)\n    return value\n", "chunk_bytes": 12,
                   "rules": [{"prefix_ends_with": "(", "text": "a, b)"}], "echo_prefix_tail": 4})js", f);
    std::fclose(f);
    // Removed at exit through a copy that outlives the function-local string.
    static char* to_remove = strdup(p.c_str());
    std::atexit([] { std::remove(to_remove); });
    return p.string();
  }();
  return path;
}

// initialize + initialized, as the client of a session with these flags sends them.
std::vector<std::string> handshake(uint8_t flags) {
  json caps = json::object();
  if (flags & 4) caps["general"] = {{"positionEncodings", {"utf-8", "utf-16"}}};
  if (flags & 8) caps["window"] = {{"workDoneProgress", true}};
  return {json{{"jsonrpc", "2.0"}, {"id", 1000000}, {"method", "initialize"}, {"params", {{"capabilities", caps}}}}.dump(),
          json{{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", json::object()}}.dump()};
}

// The two documents every session with bit 1 starts with.
const std::vector<std::string>& documents() {
  static const std::vector<std::string> docs = [] {
    auto open = [](const char* uri, const char* lang, const char* text) {
      return json{{"jsonrpc", "2.0"},
                  {"method", "textDocument/didOpen"},
                  {"params", {{"textDocument", {{"uri", uri}, {"languageId", lang}, {"version", 1}, {"text", text}}}}}}
          .dump();
    };
    return std::vector<std::string>{
        open("file:///a.py", "python", "def f(x):\n    y = x + 1\n    \n\nclass C:\n    pass\n"),
        open("file:///b.rs", "rust", "fn main() {\n    let s = \"\xc3\xa9\xf0\x9f\x98\x80\";\n    \n}\n")};
  }();
  return docs;
}

// The harness's view of the traffic: requests sent per id, replies received per id, and
// what the client's messages did to the session.
struct Ledger {
  std::map<std::string, int> requests, replies;
  std::set<std::string> opened;  // documents the client opened (or tried to)
  bool irreversible = false;     // the session changed in a way the harness cannot undo

  void client_sent(std::string_view body) {
    wafer::jsonrpc::ParseResult r = wafer::jsonrpc::parse_message(body);
    if (r.message && r.message->kind == wafer::jsonrpc::Message::Kind::kRequest)
      ++requests[wafer::jsonrpc::serialize(r.message->id)];
    else if (!r.message && !r.error_id.is_null())
      ++requests[wafer::jsonrpc::serialize(r.error_id)];  // answered with an error, by id
    if (!r.message) return;
    const std::string& method = r.message->method;
    if (method == "initialize" || method == "initialized" || method == "shutdown" || method == "exit" ||
        method == "workspace/didChangeConfiguration" || method == "$/setTrace")
      irreversible = true;
    if (method == "textDocument/didOpen") {
      const json& p = r.message->params;
      if (p.is_object() && p.contains("textDocument") && p["textDocument"].is_object() &&
          p["textDocument"].contains("uri") && p["textDocument"]["uri"].is_string())
        opened.insert(p["textDocument"]["uri"].get<std::string>());
    }
  }
  void server_sent(const std::string& body) {
    // Notifications ($/progress for every streamed chunk, most of the traffic) are not
    // parsed again: the server writes keys in order, so one starts with this and cannot
    // be a reply. Replies and the server's own requests are checked in full.
    static constexpr std::string_view kNotification = R"({"jsonrpc":"2.0","method":")";
    if (body.starts_with(kNotification) && body.ends_with('}')) return;
    json m = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (!m.is_object() || m.value("jsonrpc", "") != "2.0") fail("not a JSON-RPC 2.0 message: " + body);
    if (m.contains("method")) return;  // a notification or the server's own request
    if (!m.contains("id") || m.contains("result") == m.contains("error")) fail("malformed reply: " + body);
    if (!m["id"].is_null()) ++replies[wafer::jsonrpc::serialize(m["id"])];
  }
  // Ids of requests still waiting for a reply.
  std::vector<std::string> open_requests() const {
    std::vector<std::string> ids;
    for (const auto& [id, n] : requests) {
      auto it = replies.find(id);
      if ((it == replies.end() ? 0 : it->second) < n) ids.push_back(id);
    }
    return ids;
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

wafer::Logger& logger() {
  static wafer::Logger* log = new wafer::Logger("/dev/null");
  return *log;
}

// One server and the state of its session, kept across inputs while it can be put back.
class Live {
 public:
  explicit Live(uint8_t flags) : flags_(flags) {
    uv_loop_init(&loop_);
    static const int debounce[] = {0, 1, 3, 0};
    wafer::install_fake_engine();
    wafer::Options options;
    options.fake_engine = script_path();
    options.debounce_ms = debounce[(flags >> 4) & 3];
    // No workspace index: a fuzzed root would have it walk this machine's folders (its own
    // tests cover it; the prompt path it feeds is the one the open documents take).
    options.workspace_index = false;
    if (flags & 0x40) options.allow_roots = {"/w"};
    wafer::LspServer::Hooks hooks;
    hooks.send = [this](std::string body) {
      if (ledger_) ledger_->server_sent(body);
    };
    hooks.exit = [this](int) { exited_ = true; };
    server_ = std::make_unique<wafer::LspServer>(&loop_, options, std::move(hooks), logger());
    if (flags & 2) {
      // Initialized, and the model loaded: once per server, not per input.
      Ledger setup;
      ledger_ = &setup;
      for (const std::string& m : handshake(flags)) deliver(m);
      run_until([&] { return server_->scheduler().model_info() != nullptr; }, "the fake engine never loaded");
      setup.check();
      ledger_ = nullptr;
    }
  }

  ~Live() {
    if (server_) end(false, "");
  }
  Live(const Live&) = delete;
  Live& operator=(const Live&) = delete;

  // Feeds one input; returns false when the server cannot be used again.
  bool run(std::string_view input, bool lines) {
    Ledger ledger;
    ledger_ = &ledger;
    if (flags_ & 2)
      for (const std::string& d : documents()) deliver(d);
    wafer::FrameDecoder decoder(1 << 20);
    std::vector<wafer::FrameEvent> events;
    auto feed = [&](std::string_view bytes) {
      decoder.feed(bytes, events);
      for (wafer::FrameEvent& e : events) {
        if (exited_) break;
        if (e.kind == wafer::FrameEvent::Kind::kError) {
          server_->framing_error(e.body);
          continue;
        }
        deliver(e.body);
      }
      events.clear();
    };
    if (lines) {
      size_t start = 0;
      while (start <= input.size() && !exited_) {
        size_t nl = input.find('\n', start);
        if (nl == std::string_view::npos) nl = input.size();
        std::string_view line = input.substr(start, nl - start);
        if (!line.empty()) feed(wafer::encode_frame(line));
        start = nl + 1;
      }
    } else {
      // A few reads of arbitrary sizes, as a pipe delivers them.
      size_t pos = 0, step = 1 + input.size() / 3;
      while (pos < input.size() && !exited_) {
        feed(input.substr(pos, step));
        pos += step;
      }
    }
    bool reusable = !exited_ && !ledger.irreversible && !decoder.mid_message();
    if (reusable) {
      reset(ledger);
    } else {
      end(decoder.mid_message(), decoder.describe_pending());
    }
    ledger.check();
    ledger_ = nullptr;
    return reusable;
  }

 private:
  void deliver(std::string_view body) {
    ledger_->client_sent(body);
    server_->receive(body);
    uv_run(&loop_, UV_RUN_NOWAIT);  // let engine results interleave with input
  }

  // Back to the state before the input: no open request, no document, an idle scheduler.
  void reset(Ledger& ledger) {
    for (const std::string& id : ledger.open_requests()) {
      json cancel = {{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", json::parse(id)}}}};
      deliver(cancel.dump());
    }
    for (const std::string& uri : ledger.opened) {
      json close = {{"jsonrpc", "2.0"}, {"method", "textDocument/didClose"}, {"params", {{"textDocument", {{"uri", uri}}}}}};
      deliver(close.dump());
    }
    if (flags_ & 2)
      for (const char* uri : {"file:///a.py", "file:///b.rs"}) {
        json close = {{"jsonrpc", "2.0"}, {"method", "textDocument/didClose"}, {"params", {{"textDocument", {{"uri", uri}}}}}};
        deliver(close.dump());
      }
    run_until([&] { return ledger.open_requests().empty() && server_->scheduler().active_jobs() == 0; },
              "requests or jobs still open after the input was put back");
  }

  // Runs the loop until `done` (each turn waits for the next event: the engine thread's
  // results or a timer); fails after `turns` turns without it.
  template <typename Done>
  void run_until(Done done, const char* what, int turns = 100000) {
    for (int i = 0; !done(); ++i) {
      if (i == turns) fail(what);
      uv_run(&loop_, UV_RUN_ONCE);
    }
  }

  // End of input: the session must end, every handle close.
  void end(bool mid_message, const std::string& detail) {
    if (!exited_) server_->input_closed(mid_message, detail);
    if (!exited_) fail("end of input did not end the session");
    uv_run(&loop_, UV_RUN_DEFAULT);  // cancelled jobs answer; the scheduler's handles close
    server_.reset();
    uv_run(&loop_, UV_RUN_DEFAULT);
    if (uv_loop_close(&loop_) != 0) fail("handles left open on the loop");
  }

  uint8_t flags_;
  uv_loop_t loop_;
  std::unique_ptr<wafer::LspServer> server_;
  Ledger* ledger_ = nullptr;
  bool exited_ = false;
};

int run_one(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  uint8_t flags = data[0];
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  // The servers by the flags they depend on (without bit 1 the handshake bits do nothing).
  uint8_t key = flags & ((flags & 2) ? 0x7e : 0x72);
  static std::map<uint8_t, std::unique_ptr<Live>>* servers = new std::map<uint8_t, std::unique_ptr<Live>>;
  std::unique_ptr<Live>& live = (*servers)[key];
  if (!live) live = std::make_unique<Live>(static_cast<uint8_t>(flags & 0x7e));
  // Bit 0 is per input (how it is framed), not part of the server's state.
  if (!live->run(input, flags & 1)) live.reset();
  return 0;
}

}  // namespace fuzz_lsp

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return fuzz_lsp::run_one(data, size); }
