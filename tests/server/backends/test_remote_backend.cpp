// The remote backend against a loopback fake inference server (tests/support): request
// shape, streaming, stop rules ending the transfer, cancellation closing the connection,
// failures with backoff and one health report, the API key as a header only, and the
// scheduler running jobs on it.
#include "server/backends/remote_backend.h"

#include <catch2/catch.hpp>

#include <cstdlib>

#include "server/config/options.h"
#include "server/service/scheduler.h"
#include "server/service/service_options.h"  // remote_options() of the settings
#include "tests/support/fake_inference_server.h"
#include "tests/support/lsp_client.h"
#include "tests/support/testing.h"
#include "tests/support/uv_loop_runner.h"

using namespace wafer;
using namespace wafer::test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

namespace {

// One started completion's events.
struct Run {
  std::vector<std::string> deltas;
  std::optional<CompletionEvent> final;
  CompletionCallback callback() {
    return [this](const CompletionEvent& e) {
      if (e.kind == CompletionEvent::Kind::kText) deltas.push_back(e.text);
      else final = e;
    };
  }
  bool done() const { return final.has_value(); }
};

struct Health {
  std::vector<std::pair<bool, std::string>> reports;
  RemoteBackend::HealthCallback callback() {
    return [this](bool ok, const std::string& m) { reports.emplace_back(ok, m); };
  }
};

CompletionRequest request(const std::string& prefix = "def add(", const std::string& suffix = "\n") {
  CompletionRequest r;
  r.session_key = "file:///a.py";
  r.prefix = prefix;
  r.suffix = suffix;
  r.max_tokens = 24;
  return r;
}

RemoteOptions llama(const FakeInferenceServer& s) {
  RemoteOptions o;
  o.api = RemoteApi::kLlamaCpp;
  o.url = s.url();
  o.backoff_min_ms = 200;
  o.backoff_max_ms = 1000;
  return o;
}

// A port where nothing listens: bind one, note it, close it.
int closed_port() {
  FakeInferenceServer s;
  return s.port();
}

}  // namespace

TEST_CASE("remote backend: llama-server /infill request shape and streamed answer") {
  FakeInferenceServer server;
  UvLoopRunner loop;
  RemoteOptions o = llama(server);
  o.api_key = "sk-secret-123";
  RemoteBackend b(loop.get(), o, nullptr);
  CHECK(b.name() == "llama-server");
  CompletionRequest r = request("class A:\n    def add(", "\n\nx = 1\n");
  r.extra = {{"util.py", "def helper():\n    pass\n"}};
  Run run;
  b.start(1, r, run.callback());
  REQUIRE(loop.run_until([&] { return run.done(); }));
  REQUIRE(run.final->kind == CompletionEvent::Kind::kDone);
  CHECK(run.final->text == "a, b):");
  CHECK(run.deltas == std::vector<std::string>{"a, b", "):"});
  CHECK(run.final->timings.tokens_reused == 30);
  CHECK(run.final->timings.tokens_prefilled == 12);
  CHECK(run.final->timings.tokens_generated == 3);
  CHECK(run.final->timings.first_token_ms > 0);
  auto reqs = server.requests();
  REQUIRE(reqs.size() == 1);
  CHECK(reqs[0].path == "/infill");
  const json& body = reqs[0].body;
  CHECK(body["input_prefix"] == "class A:\n    def add(");
  CHECK(body["input_suffix"] == "\n\nx = 1\n");
  CHECK(body["input_extra"] == json::array({{{"filename", "util.py"}, {"text", "def helper():\n    pass\n"}}}));
  CHECK(body["cache_prompt"] == true);
  CHECK(body["stream"] == true);
  CHECK(body["n_predict"] == 24);
  CHECK(body["n_indent"] == 4);
  CHECK(body["t_max_predict_ms"] == 1000);
  CHECK(reqs[0].head.find("Authorization: Bearer sk-secret-123\r\n") != std::string::npos);
  b.close();
}

TEST_CASE("remote backend: a large prompt goes out without an Expect: 100-continue wait") {
  FakeInferenceServer server;  // sends no "100 Continue": a client that asked for one would stall 1 s
  UvLoopRunner loop;
  RemoteBackend b(loop.get(), llama(server), nullptr);
  Run run;
  auto t0 = Clock::now();
  b.start(1, request(std::string(64 * 1024, '#') + "\ndef add("), run.callback());
  REQUIRE(loop.run_until([&] { return run.done(); }));
  CHECK(run.final->kind == CompletionEvent::Kind::kDone);
  CHECK(Clock::now() - t0 < 500ms);
  REQUIRE(server.requests().size() == 1);
  CHECK(server.requests()[0].head.find("Expect") == std::string::npos);
  CHECK(server.requests()[0].body["input_prefix"].get<std::string>().size() == 64 * 1024 + 9);
}

TEST_CASE("remote backend: connections are kept alive between requests") {
  FakeInferenceServer server;
  UvLoopRunner loop;
  RemoteBackend b(loop.get(), llama(server), nullptr);
  for (int i = 0; i < 3; ++i) {
    Run run;
    b.start(static_cast<uint64_t>(i + 1), request(), run.callback());
    REQUIRE(loop.run_until([&] { return run.done(); }));
    CHECK(run.final->kind == CompletionEvent::Kind::kDone);
  }
  CHECK(server.connections() == 1);
  b.close();
}

TEST_CASE("remote backend: OpenAI /v1/completions with a FIM prompt, model and stop strings") {
  FakeInferenceServer server;
  FakeInferenceServer::Reply reply;
  reply.chunks = {"x = 1\n", "y = 2\n\n", "z = 3\n"};
  server.set_default(reply);
  UvLoopRunner loop;
  RemoteOptions o;
  o.api = RemoteApi::kOpenAi;
  o.url = server.url() + "/v1";
  o.model = "qwen2.5-coder-7b";
  RemoteBackend b(loop.get(), o, nullptr);
  CHECK(b.name() == "openai");
  CompletionRequest r = request("a = 0\n", "");
  r.extra = {{"b.py", "B = 1\n"}};
  r.file_path = "a.py";
  r.stop = {"\n\n"};
  Run run;
  b.start(7, r, run.callback());
  REQUIRE(loop.run_until([&] { return run.done(); }));
  REQUIRE(run.final->kind == CompletionEvent::Kind::kDone);
  CHECK(run.final->text == "x = 1\ny = 2");  // cut before the stop string, which straddled two events
  CHECK(run.final->stop == StopReason::kStopString);
  auto reqs = server.requests();
  REQUIRE(reqs.size() == 1);
  CHECK(reqs[0].path == "/v1/completions");
  CHECK(reqs[0].body["prompt"] == "<|file_sep|>b.py\nB = 1\n<|file_sep|>a.py\n<|fim_prefix|>a = 0\n<|fim_suffix|><|fim_middle|>");
  CHECK(reqs[0].body["model"] == "qwen2.5-coder-7b");
  CHECK(reqs[0].body["max_tokens"] == 24);
  CHECK(reqs[0].body["stop"] == json::array({"\n\n"}));
  CHECK(reqs[0].head.find("Authorization") == std::string::npos);
  b.close();
}

TEST_CASE("remote backend: a stop rule ends the transfer early and the server sees the close") {
  FakeInferenceServer server;
  FakeInferenceServer::Reply reply;
  reply.chunks = {"one\n", "two\n", "three\n", "four\n"};
  reply.chunk_ms = 100;
  server.set_default(reply);
  UvLoopRunner loop;
  RemoteBackend b(loop.get(), llama(server), nullptr);
  CompletionRequest r = request();
  r.should_stop = [](std::string_view text) { return text.find("two\n") != std::string_view::npos; };
  Run run;
  auto t0 = Clock::now();
  b.start(1, r, run.callback());
  REQUIRE(loop.run_until([&] { return run.done(); }));
  CHECK(run.final->kind == CompletionEvent::Kind::kDone);
  CHECK(run.final->text == "one\ntwo\n");
  CHECK(run.final->stop == StopReason::kStopCallback);
  CHECK(Clock::now() - t0 < 250ms);  // did not wait for "three" and "four"
  CHECK(server.wait_closed_mid_answer(1, 2s));
  b.close();
}

TEST_CASE("remote backend: cancel drops the transfer at once and closes its connection") {
  FakeInferenceServer server;
  FakeInferenceServer::Reply slow;
  slow.first_ms = 2000;
  server.set_default(slow);
  UvLoopRunner loop;
  RemoteBackend b(loop.get(), llama(server), nullptr);
  Run run;
  b.start(1, request(), run.callback());
  REQUIRE(loop.run_until([&] { return server.requests().size() == 1; }));
  auto t0 = Clock::now();
  b.cancel(1);
  REQUIRE(run.done());  // the final event comes from cancel() itself
  CHECK(run.final->kind == CompletionEvent::Kind::kDone);
  CHECK(run.final->stop == StopReason::kCancelled);
  CHECK(b.in_flight() == 0);
  Clock::time_point closed;
  REQUIRE(server.wait_closed_mid_answer(1, 1s, &closed));
  double ms = std::chrono::duration<double, std::milli>(closed - t0).count();
  INFO("server saw the close after " << ms << " ms");
  CHECK(ms < 100);
  // A cancelled request is not a failure: no backoff, the next one goes out.
  CHECK(b.consecutive_failures() == 0);
  b.cancel(1);  // unknown now: ignored
  b.close();
}

TEST_CASE("remote backend: a server that is down backs off, reports once, and recovers") {
  const int port = closed_port();
  UvLoopRunner loop;
  RemoteOptions o;
  o.url = "http://127.0.0.1:" + std::to_string(port);
  o.backoff_min_ms = 150;
  o.backoff_max_ms = 400;
  Health health;
  RemoteBackend b(loop.get(), o, health.callback());
  Run first;
  b.start(1, request(), first.callback());
  REQUIRE(loop.run_until([&] { return first.done(); }));
  REQUIRE(first.final->kind == CompletionEvent::Kind::kError);
  CHECK(first.final->error.find("cannot connect to http://127.0.0.1:" + std::to_string(port) + "/infill") != std::string::npos);
  CHECK(b.consecutive_failures() == 1);
  CHECK(b.backoff_left_ms() > 100);
  // Keystrokes during the backoff fail at once, without a connection attempt.
  for (int i = 0; i < 5; ++i) {
    Run r;
    b.start(static_cast<uint64_t>(10 + i), request(), r.callback());
    REQUIRE(r.done());
    CHECK(r.final->kind == CompletionEvent::Kind::kError);
    CHECK(r.final->error.find("next try in") != std::string::npos);
  }
  CHECK(b.consecutive_failures() == 1);
  // The next try after the backoff fails again: the wait doubles.
  loop.run_until([&] { return b.backoff_left_ms() == 0; });
  Run second;
  b.start(2, request(), second.callback());
  REQUIRE(loop.run_until([&] { return second.done(); }));
  CHECK(b.consecutive_failures() == 2);
  CHECK(b.backoff_left_ms() > 250);
  REQUIRE(health.reports.size() == 1);  // one report for the same problem, however often
  CHECK(!health.reports[0].first);
  CHECK(health.reports[0].second.find("is the server running?") != std::string::npos);
}

TEST_CASE("remote backend: HTTP errors, a model without FIM, a broken stream") {
  FakeInferenceServer server;
  UvLoopRunner loop;
  Health health;
  RemoteOptions o = llama(server);
  o.backoff_min_ms = 1;
  o.backoff_max_ms = 1;
  RemoteBackend b(loop.get(), o, health.callback());
  auto run_one = [&](uint64_t id) {
    loop.run_until([&] { return b.backoff_left_ms() == 0; });
    Run r;
    b.start(id, request(), r.callback());
    REQUIRE(loop.run_until([&] { return r.done(); }));
    return *r.final;
  };

  FakeInferenceServer::Reply e500;
  e500.status = 500;
  server.queue(e500);
  CompletionEvent a = run_one(1);
  CHECK(a.kind == CompletionEvent::Kind::kError);
  CHECK(a.error.find("answered HTTP 500: boom") != std::string::npos);

  FakeInferenceServer::Reply nofim;
  nofim.status = 501;
  nofim.error_body = R"({"error":{"code":501,"message":"Infill is not supported by this model: prefix token is missing. ","type":"not_supported_error"}})";
  server.queue(nofim);
  CompletionEvent c = run_one(2);
  CHECK(c.error.find("cannot fill in the middle") != std::string::npos);
  CHECK(c.error.find("prefix token is missing") != std::string::npos);

  FakeInferenceServer::Reply broken;
  broken.chunks = {"a", "b", "c"};
  broken.drop_after = 1;
  server.queue(broken);
  CompletionEvent d = run_one(3);
  CHECK(d.kind == CompletionEvent::Kind::kError);
  CHECK(d.error.find("broke before the answer was complete") != std::string::npos);

  FakeInferenceServer::Reply slot_failed;
  slot_failed.chunks = {"a"};
  slot_failed.stream_error = "slot unavailable";
  server.queue(slot_failed);
  CompletionEvent f = run_one(6);
  CHECK(f.kind == CompletionEvent::Kind::kError);
  CHECK(f.error.find("failed in the middle of the answer: slot unavailable") != std::string::npos);

  FakeInferenceServer::Reply bad_request;
  bad_request.status = 400;
  bad_request.error_body = R"({"error":{"message":"the prompt is too long"}})";
  server.queue(bad_request);
  CHECK(run_one(4).error.find("the prompt is too long") != std::string::npos);
  CHECK(b.consecutive_failures() == 4);  // a request the server disliked does not back off

  CompletionEvent ok = run_one(5);
  CHECK(ok.kind == CompletionEvent::Kind::kDone);
  CHECK(b.consecutive_failures() == 0);
  // Each distinct problem once, then the recovery.
  REQUIRE(health.reports.size() == 6);
  CHECK(health.reports.back().first);
  CHECK(health.reports.back().second.find("answers again") != std::string::npos);
}

TEST_CASE("remote backend: an OpenAI-style error inside the stream") {
  FakeInferenceServer server;
  FakeInferenceServer::Reply reply;
  reply.stream_error = "out of memory";
  server.set_default(reply);
  UvLoopRunner loop;
  RemoteOptions o;
  o.api = RemoteApi::kOpenAi;
  o.url = server.url();
  RemoteBackend b(loop.get(), o, nullptr);
  Run run;
  b.start(1, request(), run.callback());
  REQUIRE(loop.run_until([&] { return run.done(); }));
  CHECK(run.final->kind == CompletionEvent::Kind::kError);
  CHECK(run.final->error.find("failed in the middle of the answer: out of memory") != std::string::npos);
}

TEST_CASE("remote backend: an OpenAI model that writes the FIM markers back is reported") {
  FakeInferenceServer server;
  FakeInferenceServer::Reply echo;
  echo.chunks = {"print(1)", "<|fim_middle|>", "junk"};
  server.set_default(echo);
  UvLoopRunner loop;
  RemoteOptions o;
  o.api = RemoteApi::kOpenAi;
  o.url = server.url();
  Health health;
  RemoteBackend b(loop.get(), o, health.callback());
  Run run;
  b.start(1, request(), run.callback());
  REQUIRE(loop.run_until([&] { return run.done(); }));
  CHECK(run.final->kind == CompletionEvent::Kind::kError);
  CHECK(run.final->error.find("does not seem to know the FIM template") != std::string::npos);
  REQUIRE(health.reports.size() == 1);
  CHECK(b.consecutive_failures() == 1);
}

TEST_CASE("remote backend: a request that takes too long times out") {
  FakeInferenceServer server;
  FakeInferenceServer::Reply slow;
  slow.first_ms = 3000;
  server.set_default(slow);
  UvLoopRunner loop;
  RemoteOptions o = llama(server);
  o.timeout_ms = 200;
  RemoteBackend b(loop.get(), o, nullptr);
  Run run;
  auto t0 = Clock::now();
  b.start(1, request(), run.callback());
  REQUIRE(loop.run_until([&] { return run.done(); }));
  CHECK(Clock::now() - t0 < 1s);
  CHECK(run.final->error.find("did not answer within 200 ms") != std::string::npos);
}

TEST_CASE("remote backend: https verifies the server's certificate against the system's") {
  TempDir dir;
  const std::string key = (dir / "key.pem").string(), cert = (dir / "cert.pem").string();
  const std::string make = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout '" + key +
                           "' -out '" + cert + "' -subj /CN=127.0.0.1 -days 1 >/dev/null 2>&1";
  REQUIRE(std::system(make.c_str()) == 0);  // the openssl command: scripts/setup.sh installs it
  const int port = closed_port();
  // A self-signed certificate: not among the system's, so the handshake must be refused.
  Subprocess tls({"/usr/bin/openssl", "s_server", "-quiet", "-accept", std::to_string(port), "-cert", cert, "-key", key, "-www"});
  UvLoopRunner loop;
  RemoteOptions o;
  o.url = "https://127.0.0.1:" + std::to_string(port);
  o.backoff_min_ms = 10;
  o.backoff_max_ms = 20;
  RemoteBackend b(loop.get(), o, nullptr);
  std::optional<CompletionEvent> final;
  for (int attempt = 0; attempt < 50; ++attempt) {  // until s_server listens
    loop.run_until([&] { return b.backoff_left_ms() == 0; });
    Run run;
    b.start(static_cast<uint64_t>(attempt + 1), request(), run.callback());
    REQUIRE(loop.run_until([&] { return run.done(); }));
    final = run.final;
    if (final->error.find("cannot connect") == std::string::npos) break;
  }
  REQUIRE(final);
  CHECK(final->kind == CompletionEvent::Kind::kError);
  CHECK(final->error.find("TLS certificate of https://127.0.0.1:" + std::to_string(port) + "/infill is not trusted") !=
        std::string::npos);
  b.close();
}

TEST_CASE("remote backend options: backend, URL, API key from the environment or a file") {
  Options o;
  o.backend = "llama-server";
  CHECK(remote_options(o).error().message.find("backendUrl") != std::string::npos);
  o.backend_url = "gpu:8080";
  CHECK(remote_options(o).error().message.find("http:// or https://") != std::string::npos);
  o.backend_url = "https://gpu:8080";
  REQUIRE(remote_options(o));
  CHECK(remote_options(o)->api_key.empty());
  o.api_key_env = "WAFER_TEST_NO_SUCH_VARIABLE";
  CHECK(remote_options(o).error().message == "apiKeyEnv: the environment variable WAFER_TEST_NO_SUCH_VARIABLE is not set");
  ::setenv("WAFER_TEST_API_KEY", "k-env", 1);
  o.api_key_env = "WAFER_TEST_API_KEY";
  CHECK(remote_options(o)->api_key == "k-env");
  TempDir dir;
  write_file(dir / "key", "k-file\n");
  o.api_key_env.clear();
  o.api_key_file = (dir / "key").string();
  CHECK(remote_options(o)->api_key == "k-file");
  o.backend = "openai";
  o.backend_model = "m";
  CHECK(remote_options(o)->api == RemoteApi::kOpenAi);
  CHECK(remote_options(o)->model == "m");
}

TEST_CASE("scheduler with a remote backend: latest wins, the superseded transfer is dropped") {
  FakeInferenceServer server;
  FakeInferenceServer::Reply slow;
  slow.first_ms = 1500;
  server.queue(slow);  // the first request hangs; the second is answered at once
  UvLoopRunner loop;
  auto backend = std::make_shared<RemoteBackend>(loop.get(), llama(server), nullptr);
  Scheduler sched(loop.get());
  sched.set_backend(backend);
  CHECK(sched.served_by() == "llama-server");
  REQUIRE(sched.model_info());
  std::vector<Scheduler::JobResult> results;
  std::string streamed;
  auto job = [&] {
    Scheduler::Job j;
    j.key = "doc";
    j.request = request();
    j.on_text = [&](const std::string&, const std::string& so_far, const Timings::Confidence&) { streamed = so_far; };
    j.on_done = [&](Scheduler::JobResult r) { results.push_back(std::move(r)); };
    return j;
  };
  sched.submit(job());
  REQUIRE(loop.run_until([&] { return server.requests().size() == 1; }));
  CHECK(sched.engine_busy());
  sched.submit(job());
  REQUIRE(loop.run_until([&] { return results.size() == 2; }));
  CHECK(results[0].outcome == Scheduler::Outcome::kSuperseded);
  CHECK(results[1].outcome == Scheduler::Outcome::kDone);
  CHECK(results[1].text == "a, b):");
  CHECK(streamed == "a, b):");
  CHECK(server.wait_closed_mid_answer(1, 1s));
  CHECK(server.requests().size() == 2);
  sched.close();
}
