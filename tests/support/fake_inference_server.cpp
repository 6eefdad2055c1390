#include "tests/support/fake_inference_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

namespace wafer::test {
namespace {

using json = nlohmann::json;

bool send_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

bool send_chunk(int fd, const std::string& data) {  // HTTP/1.1 chunked transfer coding
  char size[16];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return send_all(fd, size + data + "\r\n");
}

std::string event(const json& j) { return "data: " + j.dump() + "\n\n"; }

json llama_chunk(const std::string& text, bool last) {
  json j = {{"content", text}, {"stop", last}};
  if (last) j["timings"] = {{"prompt_n", 12}, {"predicted_n", 3}, {"cache_n", 30}};
  return j;
}

json openai_chunk(const std::string& text, bool last) {
  json j = {{"choices", {{{"text", text}, {"index", 0}, {"finish_reason", last ? json("stop") : json(nullptr)}}}}};
  if (last) j["usage"] = {{"prompt_tokens", 42}, {"completion_tokens", 3}};
  return j;
}

}  // namespace

FakeInferenceServer::FakeInferenceServer() {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::listen(listen_fd_, 16) != 0 || ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    throw std::runtime_error("cannot listen on 127.0.0.1");
  port_ = ntohs(a.sin_port);
  accept_thread_ = std::thread([this] { accept_loop(); });
}

FakeInferenceServer::~FakeInferenceServer() {
  stop_ = true;
  accept_thread_.join();
  {
    std::lock_guard l(mu_);
    for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);  // wakes workers blocked in recv
  }
  for (auto& t : workers_) t.join();
  ::close(listen_fd_);
}

void FakeInferenceServer::set_default(Reply r) {
  std::lock_guard l(mu_);
  default_ = std::move(r);
}

void FakeInferenceServer::queue(Reply r) {
  std::lock_guard l(mu_);
  queue_.push_back(std::move(r));
}

std::vector<FakeInferenceServer::Request> FakeInferenceServer::requests() const {
  std::lock_guard l(mu_);
  return requests_;
}

bool FakeInferenceServer::wait_closed_mid_answer(int n, std::chrono::milliseconds timeout, Clock::time_point* at) {
  std::unique_lock l(mu_);
  bool ok = cv_.wait_for(l, timeout, [&] { return static_cast<int>(close_times_.size()) >= n; });
  if (ok && at) *at = close_times_[static_cast<size_t>(n - 1)];
  return ok;
}

bool FakeInferenceServer::wait_requests(size_t n, std::chrono::milliseconds timeout) {
  std::unique_lock l(mu_);
  return cv_.wait_for(l, timeout, [&] { return requests_.size() >= n; });
}

void FakeInferenceServer::accept_loop() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    int one = 1;  // events leave at once, as a real server's do
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int connection = ++connections_;
    std::lock_guard l(mu_);
    fds_.push_back(fd);
    workers_.emplace_back([this, fd, connection] { serve(fd, connection); });
  }
}

// The peer's half-close as a poll event where the OS has one (Linux); elsewhere the
// zero-byte peek below sees it.
#ifdef POLLRDHUP
constexpr short kPeerHangup = POLLRDHUP;
#else
constexpr short kPeerHangup = 0;
#endif

bool FakeInferenceServer::wait_open(int fd, int ms) {
  auto until = Clock::now() + std::chrono::milliseconds(ms);
  for (;;) {
    int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count());
    pollfd p{fd, static_cast<short>(POLLIN | kPeerHangup), 0};
    int r = ::poll(&p, 1, std::max(0, left));
    if (r > 0) {
      char c;
      if (::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0 || (p.revents & (kPeerHangup | POLLHUP | POLLERR))) return false;
      // Bytes of a next request (a pipelined one): not a close; keep waiting.
      if (left <= 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    if (left <= 0 || r == 0) return true;
  }
}

void FakeInferenceServer::serve(int fd, int connection) {
  serve_connection(fd, connection);
  std::lock_guard l(mu_);
  std::erase(fds_, fd);
  ::close(fd);
}

void FakeInferenceServer::serve_connection(int fd, int connection) {
  std::string buf;
  char tmp[8192];
  auto closed_by_client = [&] {
    ++closed_mid_answer_;
    std::lock_guard l(mu_);
    close_times_.push_back(Clock::now());
    cv_.notify_all();
  };
  while (!stop_) {
    size_t head_end;
    while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
      ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
      if (n <= 0) return;
      buf.append(tmp, static_cast<size_t>(n));
    }
    std::string head = buf.substr(0, head_end);
    size_t length = 0;
    for (const char* key : {"Content-Length: ", "content-length: "})
      if (size_t cl = head.find(key); cl != std::string::npos) length = std::stoul(head.substr(cl + 16));
    while (buf.size() < head_end + 4 + length) {
      ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
      if (n <= 0) return;
      buf.append(tmp, static_cast<size_t>(n));
    }
    Request req;
    req.head = head;
    req.path = head.substr(head.find(' ') + 1, head.find(' ', head.find(' ') + 1) - head.find(' ') - 1);
    req.body = json::parse(buf.substr(head_end + 4, length), nullptr, false);
    req.connection = connection;
    buf.erase(0, head_end + 4 + length);
    Reply r;
    {
      std::lock_guard l(mu_);
      if (!queue_.empty()) {
        r = std::move(queue_.front());
        queue_.pop_front();
      } else {
        r = default_;
      }
      requests_.push_back(req);
      cv_.notify_all();
    }
    const bool openai = req.path.ends_with("/completions");
    if (r.status != 200) {
      send_all(fd, "HTTP/1.1 " + std::to_string(r.status) + " Error\r\nContent-Type: application/json\r\nContent-Length: " +
                       std::to_string(r.error_body.size()) + "\r\n\r\n" + r.error_body);
      continue;
    }
    auto chunk = [&](const std::string& text, bool last) { return openai ? openai_chunk(text, last) : llama_chunk(text, last); };
    if (!req.body.is_object() || !req.body.value("stream", false)) {
      if (!wait_open(fd, r.first_ms)) return closed_by_client();
      std::string all;
      for (const std::string& c : r.chunks) all += c;
      std::string b = chunk(all, true).dump();
      send_all(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(b.size()) +
                       "\r\n\r\n" + b);
      continue;
    }
    if (!send_all(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")) break;
    bool open = true;
    for (size_t i = 0; open && i < r.chunks.size(); ++i) {
      if (r.drop_after >= 0 && static_cast<int>(i) >= r.drop_after) return;
      if (!wait_open(fd, i == 0 ? r.first_ms : r.chunk_ms)) open = false;
      else open = send_chunk(fd, event(chunk(r.chunks[i], false)));
    }
    if (open && r.drop_after >= 0 && static_cast<int>(r.chunks.size()) >= r.drop_after) return;
    if (open && !r.stream_error.empty()) {
      // llama-server: an "error:" event; OpenAI-style servers: a data event with "error".
      json err = {{"code", 500}, {"message", r.stream_error}, {"type", "server_error"}};
      open = send_chunk(fd, openai ? event({{"error", err}}) : "error: " + err.dump() + "\n\n") && send_all(fd, "0\r\n\r\n");
      if (open) continue;
    }
    if (open) open = send_chunk(fd, event(chunk("", true)));
    if (open && openai) open = send_chunk(fd, "data: [DONE]\n\n");
    if (open) open = send_all(fd, "0\r\n\r\n");
    if (!open) return closed_by_client();
  }
}

}  // namespace wafer::test
