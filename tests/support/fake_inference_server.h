// A loopback stand-in for an inference server, for tests of the remote backends: speaks
// llama.cpp's POST /infill and OpenAI's POST /v1/completions (server-sent events when the
// request asks to stream, else one JSON body), over HTTP/1.1 with keep-alive, one thread
// per connection. Answers follow a script — text in chunks with latencies, an HTTP error,
// a connection dropped mid-stream — and everything is recorded: request heads and bodies,
// and connections the client closed (with the time, to measure cancellation).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace wafer::test {

class FakeInferenceServer {
 public:
  using Clock = std::chrono::steady_clock;

  struct Reply {
    int status = 200;                 // not 200: an error with error_body
    std::string error_body = R"({"error":{"code":500,"message":"boom","type":"server_error"}})";
    std::vector<std::string> chunks = {"a, b", "):"};  // the completion, one event each
    int first_ms = 0;                 // before the first event (after the headers)
    int chunk_ms = 0;                 // between events
    int drop_after = -1;              // >= 0: close the connection after this many events
    std::string stream_error;         // non-empty: after the chunks, an error event with this message
  };

  struct Request {
    std::string head;   // request line and headers, as received
    std::string path;
    nlohmann::json body;
    int connection = 0; // which connection carried it (1, 2, ...)
  };

  FakeInferenceServer();
  ~FakeInferenceServer();
  FakeInferenceServer(const FakeInferenceServer&) = delete;
  FakeInferenceServer& operator=(const FakeInferenceServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }

  // The reply to requests when no scripted one is queued.
  void set_default(Reply r);
  // Replies for the next requests, in order.
  void queue(Reply r);

  std::vector<Request> requests() const;
  int connections() const { return connections_; }
  // Connections the client closed while the server was still answering on them.
  int closed_mid_answer() const { return closed_mid_answer_; }
  // Waits (up to timeout) until closed_mid_answer() >= n; the time of the n-th close.
  bool wait_closed_mid_answer(int n, std::chrono::milliseconds timeout, Clock::time_point* at = nullptr);
  // Waits until at least n requests arrived.
  bool wait_requests(size_t n, std::chrono::milliseconds timeout);

 private:
  void accept_loop();
  void serve(int fd, int connection);  // then closes fd
  void serve_connection(int fd, int connection);
  // Sleeps up to ms; false when the client closed the connection meanwhile.
  bool wait_open(int fd, int ms);

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::atomic<int> closed_mid_answer_{0};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  Reply default_;
  std::deque<Reply> queue_;
  std::vector<Request> requests_;
  std::vector<Clock::time_point> close_times_;
  std::vector<int> fds_;
  std::thread accept_thread_;
  std::vector<std::thread> workers_;
};

}  // namespace wafer::test
