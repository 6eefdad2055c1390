// The byte pipe under the LSP: reads framed messages from the client and writes framed
// replies, on the libuv loop. Stdio by default (stdin/stdout may be pipes, a TTY or
// files), or one connection with --listen whose client first presents a token: on a local
// socket (a Unix-domain socket; a named pipe on Windows) or on loopback TCP. Writes never
// block the loop and go out in the order send() was called; close() flushes them before
// closing.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <uv.h>

#include "engine/base/result.h"
#include "server/lsp/framing.h"

namespace wafer {

class Transport {
 public:
  struct Handler {
    std::function<void(std::string_view body)> message;
    std::function<void(const std::string& error)> framing_error;
    // The peer closed its side (end of stdin, TCP disconnect) or reading failed.
    std::function<void(bool mid_message, const std::string& detail)> closed;
  };
  virtual ~Transport() = default;
  virtual Status start(Handler handler) = 0;
  // Frames and queues one message.
  virtual void send(std::string body) = 0;
  // Stops reading, flushes queued writes, then closes the handles; the loop ends when done.
  virtual void close() = 0;
};

// stdin/stdout (fds given for tests).
std::unique_ptr<Transport> make_stdio_transport(uv_loop_t* loop, int in_fd = 0, int out_fd = 1,
                                                size_t max_body = kDefaultMaxBody);

struct ListenAddress {
  std::string host;  // numeric IPv4 or IPv6 ("localhost" becomes 127.0.0.1)
  int port = 0;      // 0: any free port
  bool ipv6 = false;
  bool loopback = false;
};
// "127.0.0.1:7000", "localhost:7000", "[::1]:7000", ":7000" (= 127.0.0.1).
Result<ListenAddress> parse_listen_address(std::string_view text);

// What a listening daemon's client must present first (server/lsp/listen_token.h).
struct ListenAuth {
  std::string token;
  int timeout_ms = 5000;  // the token line must arrive within this long
  std::function<void(const std::string& reason)> refused;  // for the log
};

// Listens on the address (non-loopback only with allow_remote) and reports the bound port
// through on_listening. Serves the first client that presents the token; a client without
// it (wrong, late, or an LSP message first) and any client while one is served get one
// `wafer-error:` line and are closed, and nothing they sent is read as LSP.
Result<std::unique_ptr<Transport>> make_tcp_transport(uv_loop_t* loop, const ListenAddress& address, bool allow_remote,
                                                      ListenAuth auth, std::function<void(int port)> on_listening,
                                                      size_t max_body = kDefaultMaxBody);

// Listens on a local socket: `name` is a Unix-domain socket's path (the caller chose a folder
// only the owner can enter: server/cli/listen_socket.h) or a Windows named pipe's name
// (\\.\pipe\...). Clients are served and refused as by make_tcp_transport.
Result<std::unique_ptr<Transport>> make_local_socket_transport(uv_loop_t* loop, const std::string& name, ListenAuth auth,
                                                               size_t max_body = kDefaultMaxBody);

}  // namespace wafer
