// `wafer lsp`: the Language Server Protocol daemon on stdio (default) or one connection
// (--listen) on a local socket or loopback TCP. Exit code 0 after shutdown + exit, 1 when
// exit (or the end of input) comes without shutdown, as the LSP specification says; 2 for
// usage errors.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>

#include <uv.h>

#include "engine/base/path_utf8.h"
#include "server/cli/commands.h"
#include "server/cli/listen_socket.h"
#include "server/cli/listen_token_file.h"
#include "server/index/allowed_roots.h"
#include "server/platform/local_socket.h"
#include "server/platform/platform.h"
#include "server/service/log.h"
#include "server/service/service_options.h"
#include "server/lsp/lsp_server.h"
#include "server/lsp/transport.h"

namespace wafer {
namespace {

// The token file the daemon wrote is of no use once it stops.
void remove_generated(const ListenToken& token) {
  std::error_code ec;
  if (token.generated) std::filesystem::remove(token.file, ec);
}

// Editors and tests read where the daemon listens and its token file from these lines.
void print_listening(const std::string& where, const ListenToken& token) {
  std::fprintf(stderr, "wafer lsp: listening on %s\n", where.c_str());
  std::fprintf(stderr, "wafer lsp: token file %s\n", utf8_from_path(token.file).c_str());
  std::fflush(stderr);
}

// The transport of `--listen`: loopback TCP at `address`, else a local socket.
Result<std::unique_ptr<Transport>> listen(uv_loop_t* loop, const Options& options,
                                          const std::optional<ListenAddress>& address, const ListenToken& token,
                                          Logger& log, size_t max_body) {
  ListenAuth auth{token.token, options.token_timeout_ms,
                  [&log](const std::string& reason) { log.warn("refused a client: " + reason); }};
  if (!address) {
    Result<std::string> name = prepare_listen_socket(options.listen);
    if (!name) return name.error();
    auto t = make_local_socket_transport(loop, *name, std::move(auth), max_body);
    if (!t) return t.error();
    // The folder already keeps others out; the socket's own mode says so too.
    std::string error;
    if (!os::make_socket_private(path_from_utf8(*name), error)) log.warn(error);
    print_listening(*name, token);
    return t;
  }
  return make_tcp_transport(loop, *address, options.allow_remote, std::move(auth), [&](int port) {
    print_listening(address->host + ":" + std::to_string(port), token);
  }, max_body);
}

}  // namespace

int run_lsp(const Options& options) {
  if (!options.positional.empty()) {
    std::fprintf(stderr, "wafer lsp: unexpected argument '%s' (try 'wafer lsp --help')\n", options.positional[0].c_str());
    return kExitUsage;
  }
  if (Result<std::vector<std::string>> roots = resolve_allowed_roots(options.allow_roots); !roots) {
    std::fprintf(stderr, "wafer lsp: %s\n", roots.error().message.c_str());
    return kExitUsage;
  }
  // A client that goes away must not kill us on the next write.
  os::ignore_broken_pipe();
  uv_loop_t loop;
  uv_loop_init(&loop);
  Logger log(options.log_file);

  const size_t max_body = static_cast<size_t>(std::max(options.max_message_mib, 1)) << 20;
  std::unique_ptr<Transport> transport;
  ListenToken listen_token;
  if (options.listen.empty()) {
    transport = make_stdio_transport(&loop, 0, 1, max_body);
  } else {
    // A mistyped address is a usage error, found before any file is made.
    std::optional<ListenAddress> address;
    if (!listens_on_local_socket(options.listen)) {
      Result<ListenAddress> parsed = parse_listen_address(options.listen);
      if (!parsed) {
        std::fprintf(stderr, "wafer lsp: %s\n", parsed.error().message.c_str());
        return kExitUsage;
      }
      address = *parsed;
    }
    if (allowed_roots(options).roots.empty())
      std::fprintf(stderr, "wafer lsp: no workspace folder is allowed (no home folder): pass --allow-root DIR\n");
    Result<ListenToken> token = load_or_make_listen_token(options.token_file);
    if (!token) {
      std::fprintf(stderr, "wafer lsp: %s\n", token.error().message.c_str());
      return kExitFailure;
    }
    listen_token = *token;
    Result<std::unique_ptr<Transport>> t = listen(&loop, options, address, listen_token, log, max_body);
    if (!t) {
      remove_generated(listen_token);
      std::fprintf(stderr, "wafer lsp: %s\n", t.error().message.c_str());
      return kExitFailure;
    }
    transport = std::move(*t);
  }

  int exit_code = kExitFailure;
  std::unique_ptr<LspServer> server;
  bool stopping = false;
  auto stop = [&](int code) {
    if (stopping) return;
    stopping = true;
    exit_code = code;
    server->close();
    transport->close();
  };
  LspServer::Hooks hooks;
  hooks.send = [&](std::string body) { transport->send(std::move(body)); };
  hooks.exit = stop;
  server = std::make_unique<LspServer>(&loop, options, std::move(hooks), log);

  // SIGTERM / SIGINT: stop like an exit without shutdown, and say so in the log.
  auto on_stop_signal = [&](int signum) {
    log.info(std::string("received ") + (signum == SIGTERM ? "SIGTERM" : "SIGINT") + ": stopping");
    stop(128 + signum);
  };
  uv_signal_t sigterm, sigint;
  uv_signal_init(&loop, &sigterm);
  uv_signal_init(&loop, &sigint);
  sigterm.data = sigint.data = &on_stop_signal;
  auto on_signal = [](uv_signal_t* h, int signum) { (*static_cast<decltype(on_stop_signal)*>(h->data))(signum); };
  uv_signal_start(&sigterm, on_signal, SIGTERM);
  uv_signal_start(&sigint, on_signal, SIGINT);
  uv_unref(reinterpret_cast<uv_handle_t*>(&sigterm));
  uv_unref(reinterpret_cast<uv_handle_t*>(&sigint));

  Transport::Handler handler;
  handler.message = [&](std::string_view body) { server->receive(body); };
  handler.framing_error = [&](const std::string& e) { server->framing_error(e); };
  handler.closed = [&](bool mid, const std::string& detail) { server->input_closed(mid, detail); };
  if (Status st = transport->start(std::move(handler)); !st) {
    std::fprintf(stderr, "wafer lsp: %s\n", st.error().message.c_str());
    return kExitFailure;
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  server.reset();
  uv_close(reinterpret_cast<uv_handle_t*>(&sigterm), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&sigint), nullptr);
  uv_run(&loop, UV_RUN_DEFAULT);  // finish closing handles
  uv_loop_close(&loop);
  remove_generated(listen_token);
  return exit_code;
}

}  // namespace wafer
