// libcurl transfers driven by a libuv loop, against the loopback fake inference server:
// a transfer completes inside the loop, remove() aborts without a Done call and closes the
// connection, close() ends everything.
#include "server/backends/curl_loop.h"

#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "tests/support/fake_inference_server.h"
#include "tests/support/uv_loop_runner.h"

using namespace wafer;
using namespace wafer::test;
using namespace std::chrono_literals;

namespace {

struct Post {
  CURL* easy = curl_easy_init();
  std::string body = R"({"input_prefix":"x","stream":false})";
  std::string received;
  explicit Post(const std::string& url) {
    curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, +[](char* d, size_t s, size_t n, void* u) {
      static_cast<std::string*>(u)->append(d, s * n);
      return s * n;
    });
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &received);
  }
  ~Post() { curl_easy_cleanup(easy); }
};

}  // namespace

TEST_CASE("curl loop: transfers run inside the loop and reuse their connection") {
  FakeInferenceServer server;
  UvLoopRunner loop;
  CurlLoop curl(loop.get());
  for (int i = 0; i < 2; ++i) {
    Post p(server.url() + "/infill");
    std::optional<CURLcode> done;
    REQUIRE(curl.add(p.easy, [&](CURLcode rc) { done = rc; }));
    CHECK(curl.active() == 1);
    REQUIRE(loop.run_until([&] { return done.has_value(); }));
    CHECK(*done == CURLE_OK);
    CHECK(curl.active() == 0);
    CHECK(p.received.find("\"content\":\"a, b):\"") != std::string::npos);
  }
  CHECK(server.connections() == 1);
  curl.close();
}

TEST_CASE("curl loop: remove() aborts without a Done call and the server sees the close, close() ends the rest") {
  FakeInferenceServer server;
  FakeInferenceServer::Reply slow;
  slow.first_ms = 2000;
  server.set_default(slow);
  UvLoopRunner loop;
  CurlLoop curl(loop.get());
  Post a(server.url() + "/infill"), b(server.url() + "/infill");
  bool called = false;
  REQUIRE(curl.add(a.easy, [&](CURLcode) { called = true; }));
  REQUIRE(curl.add(b.easy, [&](CURLcode) { called = true; }));
  REQUIRE(loop.run_until([&] { return server.requests().size() == 2; }));
  curl.remove(a.easy);
  CHECK(curl.active() == 1);
  CHECK(server.wait_closed_mid_answer(1, 1s));
  curl.close();
  CHECK(curl.active() == 0);
  CHECK(server.wait_closed_mid_answer(2, 1s));
  loop.run_for(20ms);
  CHECK_FALSE(called);
}
