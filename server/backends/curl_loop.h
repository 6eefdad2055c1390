// HTTP transfers on the daemon's libuv loop: libcurl's multi-socket interface, with each
// socket libcurl wants watched as a uv_poll_t and libcurl's timeout as a uv_timer_t, so
// transfers progress inside the loop and never block it (no thread, no curl_multi_poll).
// Connections stay open in the multi handle's cache between transfers (keep-alive).
//
// Only the loop thread may use it. The write/header callbacks of an easy handle run on
// the loop thread, inside this class; they must not add or remove transfers (return 0
// from a write callback to stop a transfer instead).
#pragma once

#include <curl/curl.h>
#include <uv.h>

#include <functional>
#include <map>

namespace wafer {

class CurlLoop {
 public:
  // Called once when a transfer ends by itself (done, failed, timed out, stopped by its
  // write callback), after it left the multi handle; the caller then owns the easy handle
  // again (clean it up or reuse it). Not called for remove().
  using Done = std::function<void(CURLcode result)>;

  explicit CurlLoop(uv_loop_t* loop);
  // close() must have been called and the loop run until its handles closed.
  ~CurlLoop();
  CurlLoop(const CurlLoop&) = delete;
  CurlLoop& operator=(const CurlLoop&) = delete;

  // Starts a configured easy handle. False when libcurl refuses it (nothing is called).
  bool add(CURL* easy, Done on_done);
  // Aborts a transfer at once: libcurl closes a connection that is in the middle of a
  // response rather than reuse it. No Done call; the caller owns the easy handle again.
  void remove(CURL* easy);
  size_t active() const { return transfers_.size(); }

  // Aborts everything (no Done calls) and closes the uv handles. Idempotent.
  void close();

 private:
  struct Socket;
  static int on_socket(CURL* easy, curl_socket_t fd, int what, void* self, void* socket);
  static int on_timeout(CURLM* multi, long timeout_ms, void* self);
  void action(curl_socket_t fd, int events);
  void finish_done();

  uv_loop_t* loop_;
  CURLM* multi_ = nullptr;
  uv_timer_t* timer_ = nullptr;
  std::map<CURL*, Done> transfers_;
};

}  // namespace wafer
