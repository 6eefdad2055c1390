// Test helpers that act as an editor: a child process with pipes (Subprocess) and an LSP
// client over it (LspClient) that frames messages, reads replies with timeouts, answers
// nothing on its own, and keeps every message it received for later checks.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/platform/platform.h"
#include "tests/support/testing.h"

namespace wafer::test {

using json = nlohmann::json;

class Subprocess {
 public:
  // argv[0] is the program path. stderr goes to a file (read it with stderr_text()).
  explicit Subprocess(const std::vector<std::string>& argv);
  ~Subprocess();  // kills the child if it is still running
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  bool write(std::string_view bytes);  // false when the child closed its stdin
  void close_stdin();
  // Closes our end of the child's stdout: its next write fails with EPIPE (a client that
  // went away without closing the daemon's input).
  void close_stdout();
  // Bytes from the child's stdout: waits up to timeout_ms for some; "" on timeout;
  // nullopt at end of stream.
  std::optional<std::string> read_some(int timeout_ms);
  // Exit code (128+signal when killed by one); kills the child and returns -1 after
  // timeout_ms.
  int wait(int timeout_ms);
  std::string stderr_text() const;
  int pid() const { return static_cast<int>(child_.id()); }

 private:
  TempDir dir_;
  os::Child child_;
};

class LspClient {
 public:
  // Starts `wafer lsp ARGS...`.
  explicit LspClient(const std::vector<std::string>& args);

  void send(const json& message);
  void send_raw(std::string_view bytes) { proc_.write(bytes); }
  void notify(const std::string& method, json params);
  // Sends a request and returns its id (numbers from 1).
  int64_t send_request(const std::string& method, json params);
  // Sends a request and waits for its response (other messages are kept in received()).
  json request(const std::string& method, json params, int timeout_ms = 10000);

  // The next message from the server, or nullopt after timeout_ms / at end of stream.
  std::optional<json> next(int timeout_ms = 10000);
  // Reads until a message satisfies pred; nullopt after timeout_ms. Every message read is
  // appended to received(). Responses read on the way that do not satisfy pred are kept and
  // looked at first by later calls: the server may answer requests out of order.
  std::optional<json> wait_for(const std::function<bool(const json&)>& pred, int timeout_ms = 10000);
  std::optional<json> wait_for_response(int64_t id, int timeout_ms = 10000);

  // initialize (+ initialized) with the given client capabilities and options.
  json initialize(json capabilities = json::object(), json initialization_options = nullptr);
  // shutdown + exit; returns the exit code.
  int shutdown_and_exit(int timeout_ms = 10000);

  Subprocess& process() { return proc_; }
  const std::vector<json>& received() const { return received_; }

 private:
  Subprocess proc_;
  std::string buffer_;
  std::vector<json> responses_;  // read by wait_for, not yet matched
  std::vector<json> received_;
  int64_t next_id_ = 1;
};

// textDocument/inlineCompletion params at a position (triggerKind 1: invoked, 2:
// automatic), with a partialResultToken when partial_token is not null.
json inline_completion_params(const std::string& uri, int line, int character, int trigger_kind = 1,
                              json partial_token = nullptr);

// wafer/stats' workspace_index once the index's generation passes `after` (it is built on
// its own thread); the last one seen when that does not happen within 5 s.
json wait_for_index(LspClient& client, int64_t after = 0);

// Every key of `expected` is in `actual` with a matching value (recursively; arrays must
// have the same length). Used for transcript and reply checks.
bool json_matches(const json& expected, const json& actual);

}  // namespace wafer::test
