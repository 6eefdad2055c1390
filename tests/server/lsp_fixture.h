// Test fixture for LspServer in-process, with the scripted fake engine: JSON bodies in,
// the server's messages collected, the libuv loop run until the awaited reply arrives.
// The engine is reachable for call counts and its latch (FakeEngine::hold).
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/fixtures/fake_engine.h"
#include "server/lsp/lsp_server.h"
#include "server/lsp/stats_json.h"
#include "tests/support/testing.h"
#include "tests/support/uv_loop_runner.h"

namespace wafer::test {

// A small python document with the cursor after "return " at (1, 11).
inline constexpr const char* kPriceUri = "file:///w/price.py";
inline constexpr const char* kPriceText = "def price(total, tax):\n    return \n";

class LspFixture {
 public:
  using json = nlohmann::json;

  // Starts a server on the fake engine `script` (debounce 0 unless options say otherwise)
  // and waits until the engine is loaded.
  explicit LspFixture(const json& script, Options options = {}) {
    const std::filesystem::path path = dir_ / "fake.json";
    write_file(path, script.dump());
    options.fake_engine = path.string();
    install_fake_engine();
    server_ = std::make_unique<LspServer>(
        loop_.get(), std::move(options),
        LspServer::Hooks{[this](std::string body) { sent_.push_back(json::parse(body)); }, [](int) {}}, log_);
    request("initialize", {{"capabilities", {{"general", {{"positionEncodings", {"utf-8"}}}}}}});
    notify("initialized", json::object());
    REQUIRE(loop_.run_until([&] { return server_->scheduler().engine() != nullptr; }));
  }
  ~LspFixture() { server_->close(); }

  LspServer& server() { return *server_; }
  FakeEngine& engine() { return dynamic_cast<FakeEngine&>(*server_->scheduler().engine()); }
  UvLoopRunner& loop() { return loop_; }
  // A `wafer/stats` counter (0 when never counted).
  uint64_t count(const std::string& name) {
    return stats_json(server_->stats())["counts"].value(name, uint64_t{0});
  }

  void notify(const std::string& method, const json& params) {
    server_->receive(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}.dump());
  }
  int send_request(const std::string& method, const json& params) {
    const int id = next_id_++;
    server_->receive(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump());
    return id;
  }
  // The response to request `id` (fails the test after 5 s without one).
  json response(int id) {
    const json* found = nullptr;
    REQUIRE(loop_.run_until([&] {
      for (const json& m : sent_)
        if (m.contains("id") && m["id"] == id && !m.contains("method")) found = &m;
      return found != nullptr;
    }));
    return *found;
  }
  bool answered(int id) const {
    for (const json& m : sent_)
      if (m.contains("id") && m["id"] == id && !m.contains("method")) return true;
    return false;
  }
  json request(const std::string& method, const json& params) { return response(send_request(method, params)); }

  // Documents: one open python file, edited by inserting text at a position.
  void open(const std::string& uri, const std::string& text, const std::string& language = "python") {
    notify("textDocument/didOpen",
           {{"textDocument", {{"uri", uri}, {"languageId", language}, {"version", version_}, {"text", text}}}});
  }
  void insert(const std::string& uri, int line, int character, const std::string& text) {
    json pos = {{"line", line}, {"character", character}};
    notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", ++version_}}},
                                      {"contentChanges", {{{"range", {{"start", pos}, {"end", pos}}}, {"text", text}}}}});
  }
  static json inline_params(const std::string& uri, int line, int character, int trigger_kind) {
    return {{"textDocument", {{"uri", uri}}},
            {"position", {{"line", line}, {"character", character}}},
            {"context", {{"triggerKind", trigger_kind}}}};
  }
  // The insertText of each item of an inline completion reply.
  static std::vector<std::string> texts(const json& reply) {
    std::vector<std::string> out;
    INFO(reply.dump());
    REQUIRE(reply.contains("result"));
    for (const json& item : reply["result"]["items"]) out.push_back(item["insertText"].get<std::string>());
    return out;
  }
  json counts() { return request("wafer/stats", nullptr)["result"]["counts"]; }
  // Every message the server has sent so far.
  const std::vector<json>& sent() const { return sent_; }

 private:
  TempDir dir_;
  UvLoopRunner loop_;
  Logger log_;
  std::vector<json> sent_;
  std::unique_ptr<LspServer> server_;
  int next_id_ = 1;
  int version_ = 1;
};

}  // namespace wafer::test
