// Drives the real `wafer lsp` binary over pipes, as an editor does, with a remote backend:
// a loopback fake llama-server / OpenAI server (tests/support/fake_inference_server.h).
#include <catch2/catch.hpp>

#include <cstdlib>

#include "tests/support/fake_inference_server.h"
#include "tests/support/lsp_client.h"

using namespace wafer::test;
using namespace std::chrono_literals;

namespace {

const char* kUri = "file:///work/calc.py";
const char* kText = "def add(a, b):\n    return a + b\n\n\ndef sub(\n";
const char* kSecret = "sk-test-5ecret-value";

json open_params() {
  return {{"textDocument", {{"uri", kUri}, {"languageId", "python"}, {"version", 1}, {"text", kText}}}};
}

json inline_params(int line, int character, json token = nullptr) {
  return inline_completion_params(kUri, line, character, 1, std::move(token));
}

bool is_method(const json& m, const std::string& method) { return m.value("method", "") == method; }

int count_show_messages(const std::vector<json>& received) {
  int n = 0;
  for (const json& m : received) n += is_method(m, "window/showMessage");
  return n;
}

}  // namespace

TEST_CASE("remote lsp: completions from llama-server, streamed, labelled, key and document text never logged", "[integration]") {
  FakeInferenceServer server;
  FakeInferenceServer::Reply reply;
  reply.chunks = {"x", ", y", "):\n    return x - y\n"};
  reply.chunk_ms = 5;
  server.set_default(reply);
  TempDir dir;
  ::setenv("WAFER_TEST_REMOTE_KEY", kSecret, 1);
  const std::string log = (dir / "wafer.log").string();
  LspClient c({"--backend", "llama-server", "--backend-url", server.url(), "--api-key-env", "WAFER_TEST_REMOTE_KEY",
               "--log-file", log, "--debounce-ms", "0"});
  c.initialize();
  c.notify("textDocument/didOpen", open_params());
  json r = c.request("textDocument/inlineCompletion", inline_params(4, 8, "tok-1"));
  INFO(r.dump());
  REQUIRE(r["result"]["items"].size() == 1);
  CHECK(r["result"]["items"][0]["insertText"] == "x, y):\n    return x - y");
  CHECK(r["result"]["wafer"]["served_by"] == "llama-server");
  CHECK(r["result"]["wafer"]["tokens_reused"] == 30);
  // Streamed: $/progress values before the reply, each the whole suggestion so far.
  std::vector<std::string> partial;
  for (const json& m : c.received())
    if (is_method(m, "$/progress") && m["params"]["token"] == "tok-1")
      partial.push_back(m["params"]["value"]["items"][0]["insertText"]);
  REQUIRE(!partial.empty());
  CHECK(partial.front() == "x");

  auto reqs = server.requests();
  REQUIRE(reqs.size() == 1);
  CHECK(reqs[0].path == "/infill");
  CHECK(reqs[0].body["input_prefix"].get<std::string>().ends_with("def sub("));
  CHECK(reqs[0].body["cache_prompt"] == true);
  CHECK(reqs[0].head.find(std::string("Authorization: Bearer ") + kSecret) != std::string::npos);

  json stats = c.request("wafer/stats", json::object());
  CHECK(stats["result"]["backend"] == "llama-server");
  CHECK(stats["result"]["latency_ms"]["llama-server_ms"]["count"] == 1);
  CHECK(stats["result"]["counts"]["served_by_llama-server"] == 1);
  // Document text never reaches the log at the default level: a document with a marker,
  // opened, edited and completed in.
  const std::string marker = "zq_marker_7f3a";
  const char* uri2 = "file:///work/notes.py";
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri2}, {"languageId", "python"}, {"version", 1},
                                                      {"text", "x = '" + marker + "'\n"}}}});
  c.notify("textDocument/didChange",
           {{"textDocument", {{"uri", uri2}, {"version", 2}}},
            {"contentChanges", {{{"range", {{"start", {{"line", 1}, {"character", 0}}}, {"end", {{"line", 1}, {"character", 0}}}}},
                                 {"text", "y = " + marker + "_2("}}}}});
  json r3 = c.request("textDocument/inlineCompletion", inline_completion_params(uri2, 1, 4 + marker.size() + 3, 1));
  CHECK(r3["result"]["items"].size() == 1);
  REQUIRE(server.requests().size() == 2);
  CHECK(server.requests()[1].body.dump().find(marker) != std::string::npos);  // (it did leave, to the backend)
  CHECK(c.shutdown_and_exit() == 0);
  for (const json& m : c.received()) CHECK(m.dump().find(kSecret) == std::string::npos);
  CHECK(read_file(log).find(kSecret) == std::string::npos);
  CHECK(read_file(log).find(marker) == std::string::npos);
  CHECK(read_file(log).find("completions from llama-server at " + server.url() + "/infill") != std::string::npos);
}

TEST_CASE("remote lsp: OpenAI backend from initializationOptions", "[integration]") {
  FakeInferenceServer server;
  LspClient c({"--debounce-ms", "0"});
  c.initialize(json::object(), {{"backend", "openai"},
                                {"backendUrl", server.url() + "/v1"},
                                {"backendModel", "coder-7b"},
                                {"fimTemplate", "<PRE> {prefix} <SUF>{suffix} <MID>"}});
  c.notify("textDocument/didOpen", open_params());
  json r = c.request("textDocument/inlineCompletion", inline_params(4, 8));
  INFO(r.dump());
  REQUIRE(r["result"]["items"].size() == 1);
  CHECK(r["result"]["items"][0]["insertText"] == "a, b):");
  CHECK(r["result"]["wafer"]["served_by"] == "openai");
  auto reqs = server.requests();
  REQUIRE(reqs.size() == 1);
  CHECK(reqs[0].path == "/v1/completions");
  CHECK(reqs[0].body["model"] == "coder-7b");
  CHECK(reqs[0].body["prompt"].get<std::string>().starts_with("<PRE> def add(a, b):"));
  CHECK(reqs[0].body["prompt"].get<std::string>().ends_with(" <MID>"));
  // Back to a family format (engine/decode/fim_template.h): StarCoder's markers.
  c.notify("workspace/didChangeConfiguration", {{"settings", {{"fimTemplate", ""}, {"fimFormat", "starcoder"}}}});
  json r2 = c.request("textDocument/inlineCompletion", inline_params(4, 4));  // elsewhere: not typing-through
  CHECK(r2["result"]["items"].size() == 1);
  reqs = server.requests();
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[1].body["prompt"].get<std::string>().starts_with("<fim_prefix>def add(a, b):"));
  CHECK(reqs[1].body["prompt"].get<std::string>().ends_with("<fim_middle>"));
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("remote lsp: typing cancels the in-flight request, the server sees the connection close", "[integration]") {
  FakeInferenceServer server;
  FakeInferenceServer::Reply slow;
  slow.first_ms = 3000;
  server.queue(slow);
  LspClient c({"--backend", "llama-server", "--backend-url", server.url(), "--debounce-ms", "0"});
  c.initialize();
  c.notify("textDocument/didOpen", open_params());
  int64_t first = c.send_request("textDocument/inlineCompletion", inline_params(4, 8));
  REQUIRE(server.wait_requests(1, 5s));
  c.notify("textDocument/didChange",
           {{"textDocument", {{"uri", kUri}, {"version", 2}}},
            {"contentChanges", {{{"range", {{"start", {{"line", 4}, {"character", 8}}}, {"end", {{"line", 4}, {"character", 8}}}}},
                                 {"text", "n"}}}}});
  auto t0 = FakeInferenceServer::Clock::now();
  int64_t second = c.send_request("textDocument/inlineCompletion", inline_params(4, 9));
  auto r1 = c.wait_for_response(first);
  REQUIRE(r1);
  REQUIRE(r1->contains("result"));  // superseded: no suggestion, not RequestCancelled
  CHECK((*r1)["result"]["items"].empty());
  CHECK((*r1)["result"]["wafer"]["outcome"] == "superseded");
  FakeInferenceServer::Clock::time_point closed;
  REQUIRE(server.wait_closed_mid_answer(1, 2s, &closed));
  double ms = std::chrono::duration<double, std::milli>(closed - t0).count();
  INFO("connection closed " << ms << " ms after the keystroke's request was sent");
  CHECK(ms < 500);
  auto r2 = c.wait_for_response(second);
  REQUIRE(r2);
  CHECK((*r2)["result"]["items"].size() == 1);
  CHECK(server.requests().size() == 2);
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("remote lsp: a server that is down gives one message, empty answers, and the daemon stays responsive",
          "[integration]") {
  int port;
  {
    FakeInferenceServer gone;
    port = gone.port();
  }
  LspClient c({"--backend", "llama-server", "--backend-url", "http://127.0.0.1:" + std::to_string(port), "--debounce-ms",
               "0"});
  c.initialize();
  c.notify("textDocument/didOpen", open_params());
  for (int i = 0; i < 6; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    json r = c.request("textDocument/inlineCompletion", inline_params(4, 8));
    CHECK(r["result"]["items"].empty());
    CHECK(std::chrono::steady_clock::now() - t0 < 1s);
  }
  json stats = c.request("wafer/stats", json::object());
  CHECK(stats["result"]["counts"]["outcome_error"] == 6);
  CHECK(stats["result"]["counts"]["backend_problems"] == 1);
  REQUIRE(count_show_messages(c.received()) == 1);
  for (const json& m : c.received())
    if (is_method(m, "window/showMessage")) {
      CHECK(m["params"]["type"] == 1);
      CHECK(m["params"]["message"].get<std::string>().find("cannot connect to http://127.0.0.1:" + std::to_string(port)) !=
            std::string::npos);
    }
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("remote lsp: a bad backend setting is one clear message", "[integration]") {
  LspClient c({"--backend", "openai"});
  c.initialize();
  auto m = c.wait_for([](const json& m) { return is_method(m, "window/showMessage"); });
  REQUIRE(m);
  CHECK((*m)["params"]["message"].get<std::string>().find("backendUrl (--backend-url) is not set") != std::string::npos);
  c.notify("workspace/didChangeConfiguration", {{"settings", {{"backend", "tgi"}}}});
  auto w = c.wait_for([](const json& m) {
    return is_method(m, "window/showMessage") && m["params"]["message"].get<std::string>().find("tgi") != std::string::npos;
  });
  REQUIRE(w);
  CHECK((*w)["params"]["message"] == "wafer: settings ignored: backend: expected \"local\", \"llama-server\" or \"openai\", got \"tgi\"");
  CHECK(c.shutdown_and_exit() == 0);
}
