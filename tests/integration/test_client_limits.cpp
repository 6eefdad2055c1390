// The limits on what one client may make `wafer lsp` hold (docs/settings.md, "Limits per
// client"), driven over pipes as an editor would: each is refused with a clear error and
// the daemon keeps answering.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <string>

#include "tests/support/lsp_client.h"

using namespace wafer::test;

namespace {

json open_params(const std::string& uri, const std::string& text) {
  return {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}};
}

bool is_error_message(const json& m, const std::string& text) {
  return m.value("method", "") == "window/showMessage" && m["params"].value("type", 0) == 1 &&
         m["params"].value("message", "").find(text) != std::string::npos;
}

std::string uri_of(int i) { return "file:///w/f" + std::to_string(i) + ".py"; }

// The scripted engine's script file (no model to load).
struct Script {
  explicit Script(const std::string& text = R"({"text": "pass"})") { write_file(path, text); }
  TempDir dir;
  std::filesystem::path path = dir / "fake.json";
};

}  // namespace

TEST_CASE("client limits: 10,000 didOpen hit the open-document limit and the daemon still answers",
          "[integration]") {
  Script script;
  LspClient c({"--fake-engine", script.path.string()});
  c.initialize();
  std::string batch;
  for (int i = 0; i < 10000; ++i) {
    json m = {{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"}, {"params", open_params(uri_of(i), "x = 1\n")}};
    const std::string body = m.dump();
    batch += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  }
  c.send_raw(batch);
  auto refused = c.wait_for([](const json& m) { return is_error_message(m, "too many open documents"); }, 30000);
  REQUIRE(refused);
  CHECK((*refused)["params"]["message"].get<std::string>().find("limit is 1000 (--max-open-documents)") !=
        std::string::npos);
  json stats = c.request("wafer/stats", nullptr, 30000);
  REQUIRE(stats.contains("result"));
  CHECK(stats["result"]["counts"].value("documents_opened", 0) == 1000);
  CHECK(stats["result"]["counts"].value("documents_refused", 0) == 9000);
  // Closing one makes room for another.
  c.notify("textDocument/didClose", {{"textDocument", {{"uri", uri_of(0)}}}});
  c.notify("textDocument/didOpen", open_params("file:///w/late.py", "y = 2\n"));
  stats = c.request("wafer/stats", nullptr, 30000);
  CHECK(stats["result"]["counts"].value("documents_opened", 0) == 1001);
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("client limits: the open documents' bytes are capped", "[integration]") {
  Script script;
  LspClient c({"--fake-engine", script.path.string(), "--max-document-mib", "1"});
  c.initialize();
  const std::string big(600 * 1024, 'a');
  c.notify("textDocument/didOpen", open_params(uri_of(1), "s = '" + big + "'\n"));
  c.notify("textDocument/didOpen", open_params(uri_of(2), "s = '" + big + "'\n"));
  auto refused = c.wait_for([](const json& m) { return is_error_message(m, "more than the limit of 1048576"); });
  REQUIRE(refused);
  CHECK((*refused)["params"]["message"].get<std::string>().find(uri_of(2)) != std::string::npos);
  json stats = c.request("wafer/stats", nullptr);
  CHECK(stats["result"]["counts"].value("documents_opened", 0) == 1);
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("client limits: a declared Content-Length of 2 GB is refused before anything is read", "[integration]") {
  Script script;
  LspClient c({"--fake-engine", script.path.string()});
  c.initialize();
  const auto t0 = std::chrono::steady_clock::now();
  c.send_raw("Content-Length: 2147483648\r\n\r\n{\"jsonrpc\":\"2.0\"");
  auto refused = c.wait_for([](const json& m) { return m.contains("error") && m["error"].value("code", 0) == -32700; });
  REQUIRE(refused);
  CHECK((*refused)["error"]["message"].get<std::string>().find("2147483648 exceeds the limit of 67108864") !=
        std::string::npos);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  // The daemon is still there: the end of its input mid-message is a clean exit 1.
  c.process().close_stdin();
  CHECK(c.process().wait(10000) == 1);
}

TEST_CASE("client limits: a message above --max-message-mib is skipped and the next one answered", "[integration]") {
  Script script;
  LspClient c({"--fake-engine", script.path.string(), "--max-message-mib", "1"});
  c.initialize();
  json big = {{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"},
              {"params", open_params(uri_of(1), std::string(2 << 20, 'a'))}};
  c.send(big);
  auto refused = c.wait_for([](const json& m) { return m.contains("error") && m["error"].value("code", 0) == -32700; });
  REQUIRE(refused);
  CHECK((*refused)["error"]["message"].get<std::string>().find("exceeds the limit of 1048576") != std::string::npos);
  json stats = c.request("wafer/stats", nullptr);
  REQUIRE(stats.contains("result"));
  CHECK(stats["result"]["counts"].value("documents_opened", 0) == 0);
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("client limits: requests past --max-pending-requests are refused at once", "[integration]") {
  Script script(R"({"text": "pass", "load_ms": 3000})");
  LspClient c({"--fake-engine", script.path.string(), "--max-pending-requests", "2", "--debounce-ms", "0"});
  c.initialize();
  for (int i = 0; i < 4; ++i) c.notify("textDocument/didOpen", open_params(uri_of(i), "x = 1\n"));
  // While the model loads, requests wait; the third unanswered one is refused.
  std::vector<int64_t> ids;
  for (int i = 0; i < 4; ++i)
    ids.push_back(c.send_request("textDocument/inlineCompletion", inline_completion_params(uri_of(i), 0, 6, 1)));
  auto third = c.wait_for_response(ids[2], 2000);
  REQUIRE(third);
  REQUIRE(third->contains("error"));
  CHECK((*third)["error"]["code"] == -32803);
  CHECK((*third)["error"]["message"].get<std::string>().find("too many requests in flight: the limit is 2") !=
        std::string::npos);
  // The first ones are answered once the model is there, and so are later requests.
  for (int i : {0, 1}) {
    auto r = c.wait_for_response(ids[i], 20000);
    REQUIRE(r);
    CHECK(r->contains("result"));
  }
  json stats = c.request("wafer/stats", nullptr);
  CHECK(stats.contains("result"));
  CHECK(c.shutdown_and_exit() == 0);
}
