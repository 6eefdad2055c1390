// The HTTP target against a small loopback HTTP/1.1 server written here: llama.cpp /infill
// and OpenAI /v1/completions, plain JSON and server-sent events, with known latencies.
#include "server/benchtool/bench_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <thread>

#include "tests/support/testing.h"

using namespace wafer;
using namespace wafer::bench;
using json = nlohmann::json;

namespace {

// Answers every POST after delay_ms with `text`: as one JSON body, or streamed in two
// events (the first after first_ms). Keeps connections alive; records request bodies.
class LoopbackServer {
 public:
  std::string text = "a, b):";
  int first_ms = 10, delay_ms = 25;

  LoopbackServer() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    listen(fd_, 16);
    accept_thread_ = std::thread([this] { accept_loop(); });
  }
  ~LoopbackServer() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    accept_thread_.join();
    for (auto& t : workers_) t.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::pair<std::string, json>> requests() {
    std::lock_guard l(mu_);
    return requests_;
  }

 private:
  void accept_loop() {
    while (!stop_) {
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) break;
      int one = 1;  // events go out at once, as a real server's do
      setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      std::lock_guard l(mu_);
      workers_.emplace_back([this, c] { serve(c); });
    }
  }

  static bool send_all(int c, const std::string& s) {
    size_t off = 0;
    while (off < s.size()) {
      ssize_t n = ::send(c, s.data() + off, s.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }

  void serve(int c) {
    std::string buf;
    char tmp[4096];
    for (;;) {
      size_t head_end;
      while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
        ssize_t n = recv(c, tmp, sizeof tmp, 0);
        if (n <= 0) return (void)::close(c);
        buf.append(tmp, static_cast<size_t>(n));
      }
      std::string head = buf.substr(0, head_end);
      size_t cl = head.find("Content-Length: ");
      size_t length = cl == std::string::npos ? 0 : std::stoul(head.substr(cl + 16));
      while (buf.size() < head_end + 4 + length) {
        ssize_t n = recv(c, tmp, sizeof tmp, 0);
        if (n <= 0) return (void)::close(c);
        buf.append(tmp, static_cast<size_t>(n));
      }
      std::string path = head.substr(5, head.find(' ', 5) - 5);
      json body = json::parse(buf.substr(head_end + 4, length), nullptr, false);
      buf.erase(0, head_end + 4 + length);
      {
        std::lock_guard l(mu_);
        requests_.emplace_back(path, body);
      }
      const bool openai = path == "/v1/completions";
      auto chunk = [&](const std::string& t, bool last) {
        json j = openai ? json{{"choices", {{{"text", t}}}}} : json{{"content", t}, {"stop", last}};
        if (last) {
          if (openai) j["usage"] = {{"prompt_tokens", 50}, {"completion_tokens", 3}, {"prompt_tokens_details", {{"cached_tokens", 40}}}};
          else j["timings"] = {{"prompt_n", 10}, {"predicted_n", 3}, {"cache_n", 40}};
        }
        return j;
      };
      if (path.starts_with("/missing")) {
        send_all(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found");
        continue;
      }
      if (body.value("stream", false)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(first_ms));
        if (!send_all(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")) break;
        auto event = [&](const std::string& data) {
          std::string e = "data: " + data + "\n\n";
          char size[16];
          std::snprintf(size, sizeof size, "%zx\r\n", e.size());
          return send_all(c, size + e + "\r\n");
        };
        if (!event(chunk(text.substr(0, 2), false).dump())) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms - first_ms));
        if (!event(chunk(text.substr(2), true).dump())) break;
        if (openai && !event("[DONE]")) break;
        if (!send_all(c, "0\r\n\r\n")) break;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        std::string b = chunk(text, true).dump();
        if (!send_all(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(b.size()) +
                             "\r\n\r\n" + b))
          break;
      }
    }
    ::close(c);
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread accept_thread_;
  std::mutex mu_;
  std::vector<std::thread> workers_;
  std::vector<std::pair<std::string, json>> requests_;
};

const char* kSource = "import os\n\n\ndef add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n";

Trace trace_of(int keystrokes) {
  TypingModel m;
  m.wpm = 200;  // 60 ms mean gap
  m.think_rate = 0;
  m.typo_rate = 0;
  auto t = synthesize_trace("s.py", kSource, keystrokes, 4, m);
  REQUIRE(t);
  return *t;
}

}  // namespace

TEST_CASE("endpoint URLs and request bodies") {
  CHECK(endpoint_url("http://h:1", HttpApi::kLlamaCpp) == "http://h:1/infill");
  CHECK(endpoint_url("http://h:1/", HttpApi::kOpenAi) == "http://h:1/v1/completions");
  CHECK(endpoint_url("http://h:1/v1", HttpApi::kOpenAi) == "http://h:1/v1/completions");
  CHECK(endpoint_url("http://h:1/x/infill", HttpApi::kOpenAi) == "http://h:1/x/infill");
  HttpTargetOptions o;
  json b = http_request_body(o, "pre", "suf");
  CHECK(b["input_prefix"] == "pre");
  CHECK(b["input_suffix"] == "suf");
  CHECK(b["cache_prompt"] == true);
  CHECK(b["n_predict"] == 64);
  o.api = HttpApi::kOpenAi;
  o.model = "qwen";
  json c = http_request_body(o, "x = '{suffix}'", "tail");
  CHECK(c["prompt"] == "<|fim_prefix|>x = '{suffix}'<|fim_suffix|>tail<|fim_middle|>");
  CHECK(c["model"] == "qwen");
  HttpChunk k = parse_http_chunk(json::parse(R"({"content":"hi","timings":{"prompt_n":5,"predicted_n":2,"cache_n":7}})"),
                                 HttpApi::kLlamaCpp);
  CHECK(k.text == "hi");
  CHECK(k.tokens_prefilled == 5);
  CHECK(k.tokens_generated == 2);
  CHECK(k.tokens_reused == 7);
  HttpChunk u = parse_http_chunk(json::parse(R"({"choices":[{"text":"yo"}],"usage":{"prompt_tokens":9,"completion_tokens":1}})"),
                                 HttpApi::kOpenAi);
  CHECK(u.text == "yo");
  CHECK(u.tokens_prefilled == 9);
  CHECK(u.tokens_reused == 0);
  CHECK(parse_http_chunk(json::array(), HttpApi::kOpenAi).text.empty());
}

TEST_CASE("infill replay against a loopback llama.cpp-style server, streamed and not") {
  for (bool stream : {true, false}) {
    LoopbackServer server;
    HttpTargetOptions o;
    o.url = server.url();
    o.stream = stream;
    auto target = make_http_target(o);
    ReplayOptions ro;
    ro.accept_probability = 0;
    Trace t = trace_of(16);  // types "def add(a, b):" and a bit more
    auto run = replay(t, *target, ro);
    REQUIRE(run);
    const Summary& s = run->summary;
    INFO("stream " << stream << ": " << to_json(s).dump());
    CHECK(s.keystrokes == 16);
    REQUIRE(s.final_ms.count >= 4);
    CHECK(s.final_ms.p50 >= 25);
    CHECK(s.final_ms.p50 < 25 + 20);
    if (stream) {
      CHECK(s.first_text_ms.p50 >= 10);
      CHECK(s.first_text_ms.p50 < s.final_ms.p50);
    } else {
      CHECK(s.first_text_ms.p50 == s.final_ms.p50);
    }
    CHECK(s.tokens_prefilled.p50 == 10);
    CHECK(s.tokens_reused.p50 == 40);
    CHECK(s.tokens_generated.p50 == 3);
    // The server saw the document as typed: the first keystroke typed "d" of "def add(".
    auto reqs = server.requests();
    REQUIRE(reqs.size() >= 2);
    CHECK(reqs[0].first == "/infill");
    CHECK(reqs[1].second["input_prefix"].get<std::string>().ends_with("\n\n\nd"));
    CHECK(reqs[1].second["cache_prompt"] == true);
    CHECK(reqs[1].second["stream"] == stream);
    // "a, b):" is what is typed after "def add(": accepted exactly there.
    for (const RequestRecord& r : run->requests)
      if (r.outcome == "shown") CHECK(r.accepted == (r.step == 7));
  }
}

TEST_CASE("infill replay against an OpenAI-style /v1/completions with a FIM prompt") {
  LoopbackServer server;
  server.delay_ms = 15;
  server.first_ms = 5;
  HttpTargetOptions o;
  o.url = server.url() + "/v1";
  o.api = HttpApi::kOpenAi;
  o.model = "coder";
  auto target = make_http_target(o);
  ReplayOptions ro;
  auto run = replay(trace_of(8), *target, ro);
  REQUIRE(run);
  CHECK(run->summary.final_ms.count >= 4);
  CHECK(run->summary.tokens_reused.p50 == 40);
  CHECK(run->summary.tokens_prefilled.p50 == 10);
  auto reqs = server.requests();
  REQUIRE(!reqs.empty());
  CHECK(reqs[0].first == "/v1/completions");
  CHECK(reqs[0].second["model"] == "coder");
  CHECK(reqs[0].second["prompt"].get<std::string>().starts_with("<|fim_prefix|>import os"));
}

TEST_CASE("infill: a slow endpoint's stale requests are dropped, a failing one stops the warm-up") {
  LoopbackServer server;
  server.delay_ms = 300;
  server.first_ms = 150;
  HttpTargetOptions o;
  o.url = server.url();
  auto target = make_http_target(o);
  ReplayOptions ro;
  ro.warmup = 0;
  auto run = replay(trace_of(6), *target, ro);
  REQUIRE(run);
  CHECK(run->summary.outcomes["cancelled"] == 5);
  CHECK(run->summary.outcomes["shown"] == 1);

  HttpTargetOptions bad;
  bad.url = server.url() + "/missing";
  auto failing = make_http_target(bad);
  auto r2 = replay(trace_of(3), *failing, ReplayOptions{});
  REQUIRE(!r2);
  CHECK(r2.error().message == "warm-up request failed: HTTP 404: not found");
}
