#include "server/lsp/transport.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <deque>
#include <vector>

#include "server/lsp/listen_token.h"

namespace wafer {
namespace {

// Shared machinery: input from a uv stream or a file, output to a uv stream or a file.
class UvTransport : public Transport {
 public:
  UvTransport(uv_loop_t* loop, size_t max_body) : loop_(loop), decoder_(max_body) {}
  ~UvTransport() override = default;

  void send(std::string body) override {
    if (closed_) return;
    std::string frame = encode_frame(body);
    if (out_stream_) {
      auto* w = new StreamWrite{{}, std::move(frame), this};
      uv_buf_t buf = uv_buf_init(w->data.data(), static_cast<unsigned>(w->data.size()));
      w->req.data = w;
      ++pending_writes_;
      // uv_write keeps the order of writes on a stream and never blocks the loop.
      int rc = uv_write(&w->req, out_stream_, &buf, 1, [](uv_write_t* req, int status) {
        auto* w = static_cast<StreamWrite*>(req->data);
        UvTransport* self = w->self;
        delete w;
        --self->pending_writes_;
        if (status < 0 && status != UV_ECANCELED) self->on_write_error(status);
        self->maybe_finish_close();
      });
      if (rc != 0) {
        delete w;
        --pending_writes_;
        on_write_error(rc);
      }
    } else if (out_file_ >= 0) {
      file_queue_.push_back(std::move(frame));
      pump_file_writes();
    }
  }

  void close() override {
    if (closing_) return;
    closing_ = true;
    if (in_stream_ && uv_is_active(reinterpret_cast<uv_handle_t*>(in_stream_))) uv_read_stop(in_stream_);
    maybe_finish_close();
  }

 protected:
  struct StreamWrite {
    uv_write_t req;
    std::string data;
    UvTransport* self;
  };

  void start_stream_reading() {
    in_stream_->data = this;
    uv_read_start(
        in_stream_,
        [](uv_handle_t* h, size_t, uv_buf_t* buf) {
          auto* self = static_cast<UvTransport*>(h->data);
          buf->base = self->read_buf_;
          buf->len = sizeof self->read_buf_;
        },
        [](uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
          auto* self = static_cast<UvTransport*>(s->data);
          if (n > 0) self->on_bytes(std::string_view(buf->base, static_cast<size_t>(n)));
          else if (n < 0) self->on_end(n == UV_EOF ? "" : uv_strerror(static_cast<int>(n)));
        });
  }

  void start_file_reading() {
    uv_buf_t buf = uv_buf_init(read_buf_, sizeof read_buf_);
    read_req_.data = this;
    reading_file_ = true;
    uv_fs_read(loop_, &read_req_, in_file_, &buf, 1, -1, [](uv_fs_t* req) {
      auto* self = static_cast<UvTransport*>(req->data);
      ssize_t n = req->result;
      uv_fs_req_cleanup(req);
      self->reading_file_ = false;
      if (n > 0) {
        self->on_bytes(std::string_view(self->read_buf_, static_cast<size_t>(n)));
        if (!self->closing_) self->start_file_reading();
      } else {
        self->on_end(n == 0 ? "" : uv_strerror(static_cast<int>(n)));
      }
      self->maybe_finish_close();
    });
  }

  void on_bytes(std::string_view bytes) {
    if (closing_) return;
    events_.clear();
    decoder_.feed(bytes, events_);
    for (FrameEvent& e : events_) {
      if (closing_) return;  // the handler asked to stop (exit)
      if (e.kind == FrameEvent::Kind::kMessage) handler_.message(e.body);
      else handler_.framing_error(e.body);
    }
  }

  void on_end(const std::string& error) {
    if (closing_ || ended_) return;
    ended_ = true;
    if (in_stream_) uv_read_stop(in_stream_);
    std::string detail = decoder_.mid_message() ? decoder_.describe_pending() : "";
    if (!error.empty()) detail = "read error: " + error + (detail.empty() ? "" : "; " + detail);
    handler_.closed(decoder_.mid_message(), detail);
  }

  // The client stopped reading (closed our stdout: EPIPE, or reset the socket). No reply
  // can reach it any more, so this ends the session like the end of its input does.
  void on_write_error(int status) {
    if (write_failed_) return;
    write_failed_ = true;
    if (closing_ || ended_) return;
    ended_ = true;
    if (in_stream_ && uv_is_active(reinterpret_cast<uv_handle_t*>(in_stream_))) uv_read_stop(in_stream_);
    handler_.closed(false, std::string("the client stopped reading: write error: ") + uv_strerror(status));
  }

  void pump_file_writes() {
    if (writing_file_ || file_queue_.empty()) return maybe_finish_close();
    writing_file_ = true;
    uv_buf_t buf = uv_buf_init(file_queue_.front().data(), static_cast<unsigned>(file_queue_.front().size()));
    write_req_.data = this;
    uv_fs_write(loop_, &write_req_, out_file_, &buf, 1, -1, [](uv_fs_t* req) {
      auto* self = static_cast<UvTransport*>(req->data);
      ssize_t n = req->result;
      uv_fs_req_cleanup(req);
      self->writing_file_ = false;
      std::string& front = self->file_queue_.front();
      if (n > 0 && static_cast<size_t>(n) < front.size()) front.erase(0, static_cast<size_t>(n));
      else self->file_queue_.pop_front();  // written, or failed: drop it
      if (n < 0) self->on_write_error(static_cast<int>(n));
      self->pump_file_writes();
    });
  }

  // Closes handles once writes are flushed and no file request is in flight.
  void maybe_finish_close() {
    if (!closing_ || closed_ || pending_writes_ > 0 || writing_file_ || reading_file_ || !file_queue_.empty()) return;
    closed_ = true;
    close_handles();
  }

  virtual void close_handles() = 0;

  static void close_handle(uv_handle_t* h) {
    if (h && !uv_is_closing(h)) uv_close(h, nullptr);
  }

  uv_loop_t* loop_;
  FrameDecoder decoder_;
  std::vector<FrameEvent> events_;
  Handler handler_;
  uv_stream_t* in_stream_ = nullptr;
  uv_stream_t* out_stream_ = nullptr;
  int in_file_ = -1, out_file_ = -1;
  uv_fs_t read_req_{}, write_req_{};
  bool reading_file_ = false, writing_file_ = false;
  std::deque<std::string> file_queue_;
  size_t pending_writes_ = 0;
  bool closing_ = false, closed_ = false, ended_ = false, write_failed_ = false;
  char read_buf_[65536];
};

// A stdio handle: pipe, TTY, socket or (handled as) a file.
union StdioHandle {
  uv_pipe_t pipe;
  uv_tty_t tty;
  uv_tcp_t tcp;
};

class StdioTransport : public UvTransport {
 public:
  StdioTransport(uv_loop_t* loop, int in_fd, int out_fd, size_t max_body)
      : UvTransport(loop, max_body), in_fd_(in_fd), out_fd_(out_fd) {}

  Status start(Handler handler) override {
    handler_ = std::move(handler);
    uv_stream_t* out = open_stream(out_fd_, out_handle_, /*readable=*/false);
    if (out) out_stream_ = out;
    else out_file_ = out_fd_;
    uv_stream_t* in = open_stream(in_fd_, in_handle_, /*readable=*/true);
    if (in) {
      in_stream_ = in;
      start_stream_reading();
    } else {
      in_file_ = in_fd_;
      start_file_reading();
    }
    return {};
  }

 private:
  uv_stream_t* open_stream(int fd, StdioHandle& h, bool readable) {
    switch (uv_guess_handle(fd)) {
      case UV_TTY:
        if (uv_tty_init(loop_, &h.tty, fd, readable) == 0) return reinterpret_cast<uv_stream_t*>(&h.tty);
        return nullptr;
      case UV_NAMED_PIPE:
        if (uv_pipe_init(loop_, &h.pipe, 0) == 0 && uv_pipe_open(&h.pipe, fd) == 0) return reinterpret_cast<uv_stream_t*>(&h.pipe);
        return nullptr;
      case UV_TCP:
        if (uv_tcp_init(loop_, &h.tcp) == 0 && uv_tcp_open(&h.tcp, fd) == 0) return reinterpret_cast<uv_stream_t*>(&h.tcp);
        return nullptr;
      default:
        return nullptr;  // a regular file (or /dev/null): read/written with uv_fs_*
    }
  }

  void close_handles() override {
    close_handle(reinterpret_cast<uv_handle_t*>(in_stream_));
    close_handle(reinterpret_cast<uv_handle_t*>(out_stream_));
  }

  int in_fd_, out_fd_;
  StdioHandle in_handle_{}, out_handle_{};
};

// A connection of either kind, on the heap (accepted clients) or in the transport (the
// listener); libuv handles both as a uv_stream_t.
union Connection {
  uv_tcp_t tcp;
  uv_pipe_t pipe;
};
uv_stream_t* stream_of(Connection* c) { return reinterpret_cast<uv_stream_t*>(c); }

// Listens on loopback TCP or on a local socket (a Unix-domain socket; a named pipe on
// Windows) and serves the first client that presents the token.
class ListenTransport : public UvTransport {
 public:
  ListenTransport(uv_loop_t* loop, size_t max_body, ListenAuth auth, bool pipe)
      : UvTransport(loop, max_body), auth_(std::move(auth)), pipe_(pipe) {}

  Status listen_tcp(const ListenAddress& a, std::function<void(int)> on_listening) {
    sockaddr_storage addr{};
    int rc = a.ipv6 ? uv_ip6_addr(a.host.c_str(), a.port, reinterpret_cast<sockaddr_in6*>(&addr))
                    : uv_ip4_addr(a.host.c_str(), a.port, reinterpret_cast<sockaddr_in*>(&addr));
    if (rc != 0) return make_error("invalid address '" + a.host + "'");
    init_connection(&listener_);
    listener_open_ = true;
    rc = uv_tcp_bind(&listener_.tcp, reinterpret_cast<const sockaddr*>(&addr), 0);
    if (rc == 0) rc = start_listening();
    if (rc != 0) return make_error("cannot listen on " + a.host + ":" + std::to_string(a.port) + ": " + uv_strerror(rc));
    sockaddr_storage bound{};
    int len = sizeof bound;
    uv_tcp_getsockname(&listener_.tcp, reinterpret_cast<sockaddr*>(&bound), &len);
    const uint16_t raw = bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                     : reinterpret_cast<sockaddr_in*>(&bound)->sin_port;
    const auto* be = reinterpret_cast<const unsigned char*>(&raw);  // network byte order
    int port = be[0] << 8 | be[1];
    if (on_listening) on_listening(port);
    return {};
  }

  Status listen_pipe(const std::string& name) {
    init_connection(&listener_);
    listener_open_ = true;
    int rc = uv_pipe_bind(&listener_.pipe, name.c_str());
    if (rc == 0) rc = start_listening();
    if (rc != 0) return make_error("cannot listen on " + name + ": " + uv_strerror(rc));
    return {};
  }

  Status start(Handler handler) override {
    handler_ = std::move(handler);
    return {};
  }

 private:
  // A connection that has not presented the token yet. Its handles are on the heap: the
  // one that presents the token becomes the client, the others are closed.
  struct Candidate {
    ListenTransport* self;
    Connection* conn;
    uv_timer_t* timer;
    TokenCheck check;
    char buf[4096];
  };
  struct Refusal {
    uv_write_t write;
    uv_shutdown_t shutdown;
    std::string line;
    Connection* conn;
  };
  // Clients waiting for their token at once; more are refused (a flood of idle connections).
  static constexpr size_t kMaxCandidates = 16;

  void init_connection(Connection* c) {
    if (pipe_) uv_pipe_init(loop_, &c->pipe, 0);
    else uv_tcp_init(loop_, &c->tcp);
  }

  int start_listening() {
    listener_.tcp.data = this;  // the handles' common head
    return uv_listen(stream_of(&listener_), 8, [](uv_stream_t* server, int status) {
      static_cast<ListenTransport*>(server->data)->on_connection(status);
    });
  }

  void on_connection(int status) {
    if (status < 0 || closing_) return;
    auto* conn = new Connection;
    init_connection(conn);
    if (uv_accept(stream_of(&listener_), stream_of(conn)) != 0) return close_connection(conn);
    if (client_) return refuse(conn, "the daemon already serves a client");
    if (candidates_.size() >= kMaxCandidates) return refuse(conn, "too many clients are waiting to present a token");
    auto* c = new Candidate{this, conn, new uv_timer_t, TokenCheck(auth_.token), {}};
    candidates_.push_back(c);
    stream_of(conn)->data = c;
    uv_timer_init(loop_, c->timer);
    c->timer->data = c;
    uv_timer_start(
        c->timer,
        [](uv_timer_t* t) {
          auto* c = static_cast<Candidate*>(t->data);
          c->self->end_candidate(c, "no token line within " + std::to_string(c->self->auth_.timeout_ms) + " ms");
        },
        static_cast<uint64_t>(std::max(auth_.timeout_ms, 1)), 0);
    uv_read_start(
        stream_of(conn),
        [](uv_handle_t* h, size_t, uv_buf_t* buf) {
          auto* c = static_cast<Candidate*>(h->data);
          *buf = uv_buf_init(c->buf, sizeof c->buf);
        },
        [](uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
          auto* c = static_cast<Candidate*>(s->data);
          if (n < 0) return c->self->end_candidate(c, "");
          if (n > 0) c->self->on_candidate_bytes(c, std::string_view(buf->base, static_cast<size_t>(n)));
        });
  }

  void on_candidate_bytes(Candidate* c, std::string_view bytes) {
    switch (c->check.feed(bytes)) {
      case TokenCheck::State::kReading: return;
      case TokenCheck::State::kRefused: return end_candidate(c, c->check.reason());
      case TokenCheck::State::kAccepted: break;
    }
    if (client_ || closing_) return end_candidate(c, "the daemon already serves a client");
    const std::string rest = c->check.rest();
    client_ = forget_candidate(c);
    if (!pipe_) uv_tcp_nodelay(&client_->tcp, 1);
    in_stream_ = out_stream_ = stream_of(client_);
    start_stream_reading();
    if (!rest.empty()) on_bytes(rest);
  }

  // Refuses the candidate with the reason ("": it went away; close without a word).
  void end_candidate(Candidate* c, std::string reason) {  // a copy: c (which may own it) is freed
    Connection* conn = forget_candidate(c);
    if (reason.empty()) return close_connection(conn);
    refuse(conn, reason);
  }

  // Stops reading the candidate's connection and frees the rest of it; returns the connection.
  Connection* forget_candidate(Candidate* c) {
    Connection* conn = c->conn;
    uv_read_stop(stream_of(conn));
    uv_close(reinterpret_cast<uv_handle_t*>(c->timer), [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
    candidates_.erase(std::find(candidates_.begin(), candidates_.end(), c));
    delete c;
    return conn;
  }

  // Writes one error line, ends our side of the connection (so the line arrives before
  // the close), and closes it; nothing more is read from it.
  void refuse(Connection* conn, const std::string& reason) {
    if (auth_.refused) auth_.refused(reason);
    auto* r = new Refusal{{}, {}, std::string(kTokenErrorPrefix) + reason + "\r\n", conn};
    r->write.data = r;
    uv_buf_t buf = uv_buf_init(r->line.data(), static_cast<unsigned>(r->line.size()));
    if (uv_write(&r->write, stream_of(conn), &buf, 1, [](uv_write_t* req, int status) {
          auto* r = static_cast<Refusal*>(req->data);
          r->shutdown.data = r;
          if (status < 0 || uv_shutdown(&r->shutdown, stream_of(r->conn), [](uv_shutdown_t* req, int) {
                auto* r = static_cast<Refusal*>(req->data);
                close_connection(r->conn);
                delete r;
              }) != 0) {
            close_connection(r->conn);
            delete r;
          }
        }) != 0) {
      close_connection(conn);
      delete r;
    }
  }

  static void close_connection(Connection* conn) {
    auto* h = reinterpret_cast<uv_handle_t*>(conn);
    if (!uv_is_closing(h)) uv_close(h, [](uv_handle_t* h) { delete reinterpret_cast<Connection*>(h); });
  }

  void close_handles() override {
    if (listener_open_) close_handle(reinterpret_cast<uv_handle_t*>(&listener_));
    while (!candidates_.empty()) close_connection(forget_candidate(candidates_.back()));
    if (client_) close_connection(client_);
  }

  ListenAuth auth_;
  bool pipe_;
  Connection listener_{};
  Connection* client_ = nullptr;  // the connection that presented the token
  bool listener_open_ = false;
  std::vector<Candidate*> candidates_;
};

}  // namespace

std::unique_ptr<Transport> make_stdio_transport(uv_loop_t* loop, int in_fd, int out_fd, size_t max_body) {
  return std::make_unique<StdioTransport>(loop, in_fd, out_fd, max_body);
}

Result<ListenAddress> parse_listen_address(std::string_view text) {
  ListenAddress a;
  std::string_view host, port;
  if (text.starts_with("[")) {
    size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return make_error("--listen: expected [IPV6]:PORT, got '" + std::string(text) + "'");
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
    a.ipv6 = true;
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return make_error("--listen: expected HOST:PORT, got '" + std::string(text) + "'");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), a.port);
  if (port.empty() || ec != std::errc() || p != port.data() + port.size() || a.port < 0 || a.port > 65535)
    return make_error("--listen: bad port '" + std::string(port) + "'");
  if (host.empty() || host == "localhost") host = "127.0.0.1";
  a.host = std::string(host);
  if (a.ipv6) {
    unsigned char v6[16] = {};
    if (uv_inet_pton(AF_INET6, a.host.c_str(), v6) != 0) return make_error("--listen: bad IPv6 address '" + a.host + "'");
    static const unsigned char kLoopback6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    a.loopback = std::memcmp(v6, kLoopback6, sizeof v6) == 0;
  } else {
    unsigned char v4[4] = {};
    if (uv_inet_pton(AF_INET, a.host.c_str(), v4) != 0)
      return make_error("--listen: expected a numeric IPv4 address or localhost, got '" + a.host + "'");
    a.loopback = v4[0] == 127;
  }
  return a;
}

Result<std::unique_ptr<Transport>> make_tcp_transport(uv_loop_t* loop, const ListenAddress& address, bool allow_remote,
                                                      ListenAuth auth, std::function<void(int)> on_listening,
                                                      size_t max_body) {
  if (!address.loopback && !allow_remote)
    return make_error("refusing to listen on non-loopback address " + address.host +
                      ": anyone on the network could read your code (use --allow-remote to override)");
  if (auth.token.empty()) return make_error("a listening daemon needs a token");
  auto t = std::make_unique<ListenTransport>(loop, max_body, std::move(auth), /*pipe=*/false);
  if (Status st = t->listen_tcp(address, std::move(on_listening)); !st) {
    // The listener handle is registered with the loop; keep its memory valid (the caller
    // exits without running the loop again).
    (void)t.release();
    return st.error();
  }
  return std::unique_ptr<Transport>(std::move(t));
}

Result<std::unique_ptr<Transport>> make_local_socket_transport(uv_loop_t* loop, const std::string& name, ListenAuth auth,
                                                               size_t max_body) {
  if (auth.token.empty()) return make_error("a listening daemon needs a token");
  auto t = std::make_unique<ListenTransport>(loop, max_body, std::move(auth), /*pipe=*/true);
  if (Status st = t->listen_pipe(name); !st) {
    (void)t.release();  // as above
    return st.error();
  }
  return std::unique_ptr<Transport>(std::move(t));
}

}  // namespace wafer
