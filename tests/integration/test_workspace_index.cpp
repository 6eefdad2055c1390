// The workspace index through the real `wafer lsp` binary with the scripted engine (which
// echoes the names of the definitions its prompt's extra context holds): definitions of
// files that are not open reach the prompt, a file changed on disk is read again, the root
// falls back to the repository of the first file opened, and the setting turns it off.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "server/prompt/prompt_paths.h"
#include "tests/support/lsp_client.h"

using namespace wafer::test;

namespace {

struct Workspace {
  TempDir dir;
  std::string uri(const std::string& name) const { return wafer::uri_from_path((dir / name).string()); }
  Workspace() {
    write_file(dir / ".git" / "HEAD", "ref: refs/heads/main\n");
    write_file(dir / "util.py", "def gamma(z):\n    return z - 3\n");
    write_file(dir / "main.py", "def main():\n    return gamma(2)\n\n");
    write_file(dir / ".gitignore", "skip/\n");
    write_file(dir / "skip" / "other.py", "def gamma():\n    return 'ignored'\n");
  }
};

struct Daemon {
  TempDir scratch;
  std::unique_ptr<LspClient> client;
  Daemon(const json& root_uri, const std::vector<std::string>& extra = {}) {
    write_file(scratch / "fake.json", json{{"text", "="}, {"echo_extra", true}}.dump());
    std::vector<std::string> args{"--fake-engine", (scratch / "fake.json").string(), "--debounce-ms", "0"};
    args.insert(args.end(), extra.begin(), extra.end());
    client = std::make_unique<LspClient>(args);
    json params = {{"processId", nullptr}, {"rootUri", root_uri}, {"capabilities", json::object()}};
    REQUIRE(client->request("initialize", params).contains("result"));
    client->notify("initialized", json::object());
  }
  json index() { return client->request("wafer/stats", nullptr)["result"]["workspace_index"]; }
  // Waits until the index's generation passes `after` (it is built on its own thread).
  json wait_index(int64_t after) {
    json s = wait_for_index(*client, after);
    if (!s.contains("generation") || s["generation"].get<int64_t>() <= after) FAIL("the workspace index did not change");
    return s;
  }
  void open(const std::string& uri, const std::string& text) {
    client->notify("textDocument/didOpen",
                   {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  }
  std::string suggest(const std::string& uri, int line, int character) {
    json r = client->request("textDocument/inlineCompletion",
                             {{"textDocument", {{"uri", uri}}},
                              {"position", {{"line", line}, {"character", character}}},
                              {"context", {{"triggerKind", 2}}}});
    INFO(r.dump());
    REQUIRE(r.contains("result"));
    return r["result"]["items"].empty() ? "" : r["result"]["items"][0]["insertText"].get<std::string>();
  }
};

}  // namespace

TEST_CASE("workspace index: definitions of files that are not open reach the prompt", "[integration]") {
  Workspace ws;
  Daemon d(wafer::uri_from_path(ws.dir.path().string()));
  json s = d.wait_index(0);
  CHECK(s["files"] == 2);  // util.py, main.py; skip/ is ignored
  CHECK(s["truncated"] == false);
  d.open(ws.uri("main.py"), "def main():\n    return gamma(2)\n\n");
  CHECK(d.suggest(ws.uri("main.py"), 2, 0).find("gamma") != std::string::npos);

  // util.py changes on disk; the client's file watcher says so.
  write_file(ws.dir / "util.py", "def omega(z):\n    return z\n");
  d.client->notify("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", ws.uri("util.py")}, {"type", 2}}}}});
  d.wait_index(s["generation"].get<int64_t>());
  d.client->notify("textDocument/didChange",
                   {{"textDocument", {{"uri", ws.uri("main.py")}, {"version", 2}}},
                    {"contentChanges", {{{"text", "def main():\n    return omega(2)\n\n"}}}}});
  const std::string after = d.suggest(ws.uri("main.py"), 2, 0);
  CHECK(after.find("omega") != std::string::npos);
  CHECK(after.find("gamma") == std::string::npos);
  CHECK(d.client->shutdown_and_exit() == 0);
}

TEST_CASE("workspace index: without a root, the repository of the first file opened", "[integration]") {
  Workspace ws;
  Daemon d(nullptr);
  CHECK(d.index()["root"].is_null());
  d.open(ws.uri("main.py"), "def main():\n    return gamma(2)\n\n");
  json s = d.wait_index(0);
  CHECK(s["root"] == ws.dir.path().lexically_normal().string());
  CHECK(d.suggest(ws.uri("main.py"), 2, 0).find("gamma") != std::string::npos);
  CHECK(d.client->shutdown_and_exit() == 0);
}

TEST_CASE("workspace index: off by the setting, the prompt has only open documents", "[integration]") {
  Workspace ws;
  Daemon d(wafer::uri_from_path(ws.dir.path().string()), {"--workspace-index", "off"});
  d.open(ws.uri("main.py"), "def main():\n    return gamma(2)\n\n");
  CHECK(d.suggest(ws.uri("main.py"), 2, 0).find("gamma") == std::string::npos);
  json s = d.index();
  CHECK(s["enabled"] == false);
  CHECK_FALSE(s.contains("files"));
  CHECK(d.client->shutdown_and_exit() == 0);
}

TEST_CASE("workspace index: at --max-index-files no file is added, stats count it, completions go on",
          "[integration]") {
  Workspace ws;
  write_file(ws.dir / "extra.py", "def delta():\n    return 4\n");
  // The client asks for more than the owner's cap; the cap wins.
  TempDir scratch;
  write_file(scratch / "fake.json", json{{"text", "="}, {"echo_extra", true}}.dump());
  LspClient client({"--fake-engine", (scratch / "fake.json").string(), "--debounce-ms", "0", "--max-index-files", "1",
                    "--log-file", (scratch / "log").string()});
  json params = {{"processId", nullptr},
                 {"rootUri", wafer::uri_from_path(ws.dir.path().string())},
                 {"capabilities", json::object()},
                 {"initializationOptions", {{"indexMaxFiles", 1000}}}};
  REQUIRE(client.request("initialize", params).contains("result"));
  client.notify("initialized", json::object());
  json s = wait_for_index(client);
  INFO(s.dump());
  CHECK(s["files"] == 1);
  CHECK(s["truncated"] == true);
  CHECK(s["limit_skipped"] == 2);  // of extra.py, main.py, util.py: one indexed

  // A new file is not added either; the count grows and the index keeps its one file.
  write_file(ws.dir / "more.py", "def epsilon():\n    return 5\n");
  client.notify("workspace/didChangeWatchedFiles",
                {{"changes", {{{"uri", wafer::uri_from_path((ws.dir / "more.py").string())}, {"type", 1}}}}});
  s = wait_for_index(client, s["generation"].get<int64_t>());
  CHECK(s["files"] == 1);
  CHECK(s["limit_skipped"] == 3);
  // Said once in the log, however often the limit is met.
  const std::string log = read_file(scratch / "log");
  const size_t at = log.find("workspace index: at its limit");
  CHECK(at != std::string::npos);
  CHECK(log.find("workspace index: at its limit", at + 1) == std::string::npos);

  // Completions go on.
  const std::string uri = wafer::uri_from_path((ws.dir / "main.py").string());
  client.notify("textDocument/didOpen", {{"textDocument",
                                          {{"uri", uri}, {"languageId", "python"}, {"version", 1},
                                           {"text", "def main():\n    return gamma(2)\n\n"}}}});
  json r = client.request("textDocument/inlineCompletion",
                          {{"textDocument", {{"uri", uri}}},
                           {"position", {{"line", 2}, {"character", 0}}},
                           {"context", {{"triggerKind", 2}}}});
  CHECK(r.contains("result"));
  CHECK(!r["result"]["items"].empty());
  CHECK(client.shutdown_and_exit() == 0);
}
