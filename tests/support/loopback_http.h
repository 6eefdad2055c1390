// A tiny HTTP/1.1 server on 127.0.0.1 for tests that download (`wafer pull`): serves bodies
// registered in memory from a background thread, one request per connection, honours
// "Range: bytes=N-" (206/416) unless told not to, and can cut a response short to simulate
// a broken transfer. No internet is needed or touched.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace wafer::test {

class LoopbackHttp {
 public:
  struct Route {
    std::string body;
    int status = 200;
    bool ranges = true;        // false: ignore Range headers (always 200 with the whole body)
    int cut_responses = 0;     // this many responses stop after cut_after body bytes
    size_t cut_after = 0;
  };

  LoopbackHttp();   // binds an ephemeral port and starts serving
  ~LoopbackHttp();  // stops the thread
  LoopbackHttp(const LoopbackHttp&) = delete;
  LoopbackHttp& operator=(const LoopbackHttp&) = delete;

  void serve(const std::string& path, Route route);
  std::string url(const std::string& path) const;  // "http://127.0.0.1:PORT/path"

  // Every request received so far: "GET /path" plus " range=N-" when it asked for a range.
  std::vector<std::string> requests() const;

 private:
  void loop();
  void handle(int fd);

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::unordered_map<std::string, Route> routes_;
  std::vector<std::string> log_;
  std::thread thread_;
};

}  // namespace wafer::test
