#include "server/backends/curl_loop.h"

#include <mutex>
#include <vector>

namespace wafer {

// One socket libcurl asked us to watch.
struct CurlLoop::Socket {
  uv_poll_t poll;
  curl_socket_t fd;
  CurlLoop* self;
};

CurlLoop::CurlLoop(uv_loop_t* loop) : loop_(loop) {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  multi_ = curl_multi_init();
  curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlLoop::on_socket);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlLoop::on_timeout);
  curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
  timer_ = new uv_timer_t;
  uv_timer_init(loop_, timer_);
  timer_->data = this;
}

CurlLoop::~CurlLoop() { close(); }

bool CurlLoop::add(CURL* easy, Done on_done) {
  if (!multi_) return false;
  transfers_[easy] = std::move(on_done);
  if (curl_multi_add_handle(multi_, easy) != CURLM_OK) {
    transfers_.erase(easy);
    return false;
  }
  return true;  // libcurl asks for a timeout at once; the transfer starts from the timer
}

void CurlLoop::remove(CURL* easy) {
  if (!transfers_.erase(easy)) return;
  curl_multi_remove_handle(multi_, easy);
}

void CurlLoop::close() {
  if (!multi_) return;
  for (auto& [easy, done] : transfers_) curl_multi_remove_handle(multi_, easy);
  transfers_.clear();
  // Closes cached connections; libcurl tells on_socket to forget their sockets first.
  curl_multi_cleanup(multi_);
  multi_ = nullptr;
  uv_timer_stop(timer_);
  uv_close(reinterpret_cast<uv_handle_t*>(timer_), [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
  timer_ = nullptr;
}

int CurlLoop::on_socket(CURL*, curl_socket_t fd, int what, void* self_p, void* socket_p) {
  auto* self = static_cast<CurlLoop*>(self_p);
  auto* s = static_cast<Socket*>(socket_p);
  if (what == CURL_POLL_REMOVE) {
    if (s) {
      uv_poll_stop(&s->poll);
      uv_close(reinterpret_cast<uv_handle_t*>(&s->poll), [](uv_handle_t* h) { delete static_cast<Socket*>(h->data); });
      if (self->multi_) curl_multi_assign(self->multi_, fd, nullptr);
    }
    return 0;
  }
  if (!s) {
    s = new Socket{{}, fd, self};
    if (uv_poll_init_socket(self->loop_, &s->poll, fd) != 0) {
      delete s;
      return -1;  // libcurl fails the transfer rather than wait forever
    }
    s->poll.data = s;
    curl_multi_assign(self->multi_, fd, s);
  }
  int events = 0;
  if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) events |= UV_READABLE;
  if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) events |= UV_WRITABLE;
  uv_poll_start(&s->poll, events, [](uv_poll_t* h, int status, int ev) {
    auto* sock = static_cast<Socket*>(h->data);
    int flags = 0;
    if (status < 0) flags = CURL_CSELECT_ERR;
    if (ev & UV_READABLE) flags |= CURL_CSELECT_IN;
    if (ev & UV_WRITABLE) flags |= CURL_CSELECT_OUT;
    sock->self->action(sock->fd, flags);
  });
  return 0;
}

int CurlLoop::on_timeout(CURLM*, long timeout_ms, void* self_p) {
  auto* self = static_cast<CurlLoop*>(self_p);
  if (!self->timer_) return 0;
  if (timeout_ms < 0) {
    uv_timer_stop(self->timer_);
    return 0;
  }
  // 0 means "now": still go through the loop, since libcurl may not be re-entered here.
  uv_timer_start(
      self->timer_, [](uv_timer_t* t) { static_cast<CurlLoop*>(t->data)->action(CURL_SOCKET_TIMEOUT, 0); },
      static_cast<uint64_t>(timeout_ms), 0);
  return 0;
}

void CurlLoop::action(curl_socket_t fd, int events) {
  if (!multi_) return;
  int running = 0;
  curl_multi_socket_action(multi_, fd, events, &running);
  finish_done();
}

void CurlLoop::finish_done() {
  // Collect first: a Done callback may add or remove transfers.
  std::vector<std::pair<CURL*, CURLcode>> ended;
  int left = 0;
  while (CURLMsg* m = curl_multi_info_read(multi_, &left))
    if (m->msg == CURLMSG_DONE) ended.emplace_back(m->easy_handle, m->data.result);
  for (auto [easy, result] : ended) {
    auto it = transfers_.find(easy);
    if (it == transfers_.end()) continue;  // removed by an earlier callback of this batch
    Done done = std::move(it->second);
    transfers_.erase(it);
    curl_multi_remove_handle(multi_, easy);
    if (done) done(result);
    if (!multi_) return;  // closed from the callback
  }
}

}  // namespace wafer
