#include "tests/support/loopback_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace wafer::test {
namespace {

void send_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k <= 0) return;  // the client went away: nothing more to do for this request
    p += k;
    n -= size_t(k);
  }
}

void send_all(int fd, const std::string& s) { send_all(fd, s.data(), s.size()); }

std::string reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 206: return "Partial Content";
    case 404: return "Not Found";
    case 416: return "Range Not Satisfiable";
    case 500: return "Internal Server Error";
    default: return "Status";
  }
}

}  // namespace

LoopbackHttp::LoopbackHttp() {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listen_fd_ < 0) throw std::runtime_error("socket() failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 16) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("cannot listen on 127.0.0.1");
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { loop(); });
}

LoopbackHttp::~LoopbackHttp() {
  stop_ = true;
  thread_.join();
  ::close(listen_fd_);
}

void LoopbackHttp::serve(const std::string& path, Route route) {
  std::lock_guard lock(mu_);
  routes_[path] = std::move(route);
}

std::string LoopbackHttp::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

std::vector<std::string> LoopbackHttp::requests() const {
  std::lock_guard lock(mu_);
  return log_;
}

void LoopbackHttp::loop() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    handle(fd);
    ::close(fd);
  }
}

void LoopbackHttp::handle(int fd) {
  std::string head;
  char buf[4096];
  while (head.find("\r\n\r\n") == std::string::npos && head.size() < 65536) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) return;
    ssize_t k = ::recv(fd, buf, sizeof buf, 0);
    if (k <= 0) return;
    head.append(buf, size_t(k));
  }
  const size_t sp1 = head.find(' '), sp2 = head.find(' ', sp1 + 1);
  if (sp1 == std::string::npos || sp2 == std::string::npos) return;
  const std::string path = head.substr(sp1 + 1, sp2 - sp1 - 1);
  long long from = -1;
  for (const char* key : {"\r\nRange: bytes=", "\r\nrange: bytes="})
    if (size_t r = head.find(key); r != std::string::npos) from = std::stoll(head.substr(r + std::string(key).size()));

  Route route;
  bool cut = false;
  {
    std::lock_guard lock(mu_);
    log_.push_back(head.substr(0, sp2) + (from >= 0 ? " range=" + std::to_string(from) + "-" : ""));
    auto it = routes_.find(path);
    if (it == routes_.end()) {
      route.status = 404;
      route.body = "no such file\n";
    } else {
      route = it->second;
      if (it->second.cut_responses > 0) {
        --it->second.cut_responses;
        cut = true;
      }
    }
  }

  int status = route.status;
  std::string extra, body = route.body;
  if (status == 200 && route.ranges && from >= 0) {
    const size_t total = route.body.size();
    if (size_t(from) >= total) {
      status = 416;
      extra = "Content-Range: bytes */" + std::to_string(total) + "\r\n";
      body.clear();
    } else {
      status = 206;
      extra = "Content-Range: bytes " + std::to_string(from) + "-" + std::to_string(total - 1) + "/" +
              std::to_string(total) + "\r\n";
      body = route.body.substr(size_t(from));
    }
  }
  send_all(fd, "HTTP/1.1 " + std::to_string(status) + " " + reason(status) + "\r\nContent-Length: " +
                   std::to_string(body.size()) + "\r\n" + extra + "Connection: close\r\n\r\n");
  send_all(fd, body.data(), cut ? std::min(route.cut_after, body.size()) : body.size());
}

}  // namespace wafer::test
