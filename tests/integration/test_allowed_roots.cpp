// The folders a client's workspace may be in (`--allow-root`, index/allowed_roots.h),
// through the real `wafer lsp` binary: a client naming `/`, a folder outside the allowed
// ones, a symbolic link or `..` leading out of one is refused at initialize and nothing is
// indexed; a folder inside is served; an added workspace folder outside is refused aloud;
// a document outside does not make its repository the index's root.
#include <catch2/catch.hpp>

#include <filesystem>

#include "server/prompt/prompt_paths.h"
#include "tests/support/lsp_client.h"

using namespace wafer::test;
namespace fs = std::filesystem;

namespace {

// allowed/project (a repository) and outside/secret (another), and allowed/escape, a link
// to outside/.
struct Tree {
  TempDir dir;
  fs::path allowed = dir / "allowed", project = allowed / "project", outside = dir / "outside",
           secret = outside / "secret", script = dir / "fake.json";
  Tree() {
    write_file(script, R"({"text": "pass"})");
    write_file(project / ".git" / "HEAD", "ref: refs/heads/main\n");
    write_file(project / "util.py", "def gamma(z):\n    return z - 3\n");
    write_file(secret / ".git" / "HEAD", "ref: refs/heads/main\n");
    write_file(secret / "keys.py", "def api_key():\n    return 'hunter2'\n");
    fs::create_directory_symlink(outside, allowed / "escape");
  }
  static std::string uri(const fs::path& p) { return wafer::uri_from_path(p.string()); }
};

json initialize(LspClient& client, json params) {
  params["processId"] = nullptr;
  params["capabilities"] = json::object();
  return client.request("initialize", params);
}

bool refused(const json& r, const std::string& reason) {
  INFO(r.dump());
  return r.contains("error") && r["error"]["code"] == -32602 &&
         r["error"]["message"].get<std::string>().find(reason) != std::string::npos;
}

}  // namespace

TEST_CASE("allowed roots: a workspace outside --allow-root is refused, one inside is served", "[integration]") {
  Tree t;
  LspClient client({"--fake-engine", t.script.string(), "--allow-root", t.allowed.string()});
  CHECK(refused(initialize(client, {{"rootUri", "file:///"}}), "is the whole file system"));
  CHECK(refused(initialize(client, {{"rootPath", "/"}}), "is the whole file system"));
  CHECK(refused(initialize(client, {{"rootUri", Tree::uri(t.secret)}}), "is outside the folders this daemon allows"));
  CHECK(refused(initialize(client, {{"rootUri", Tree::uri(t.allowed / "escape" / "secret")}}),
                "is outside the folders this daemon allows"));
  CHECK(refused(initialize(client, {{"rootUri", Tree::uri(t.project)},
                                    {"workspaceFolders", {{{"uri", Tree::uri(t.project)}, {"name", "p"}},
                                                          {{"uri", Tree::uri(t.allowed / ".." / "outside")},
                                                           {"name", "o"}}}}}),
                "is outside the folders this daemon allows"));
  CHECK(refused(initialize(client, {{"rootUri", "untitled:folder"}}), "is not a file: URI"));

  json ok = initialize(client, {{"rootUri", Tree::uri(t.project)}});
  INFO(ok.dump());
  REQUIRE(ok.contains("result"));
  client.notify("initialized", json::object());
  CHECK(wait_for_index(client)["files"] == 1);

  // A folder added later outside the allowed ones is refused aloud.
  client.notify("workspace/didChangeWorkspaceFolders",
                {{"event", {{"added", {{{"uri", Tree::uri(t.allowed / "escape")}, {"name", "e"}}}},
                            {"removed", json::array()}}}});
  auto message = client.wait_for([](const json& m) {
    return m.value("method", "") == "window/showMessage" && m["params"].value("type", 0) == 1 &&
           m["params"].value("message", "").find("is outside the folders this daemon allows") != std::string::npos;
  });
  CHECK(message);
  CHECK(client.shutdown_and_exit() == 0);
}

TEST_CASE("allowed roots: a document outside them does not start an index", "[integration]") {
  Tree t;
  TempDir scratch;
  LspClient client({"--fake-engine", t.script.string(), "--allow-root", t.allowed.string(), "--log-file",
                    (scratch / "log").string()});
  client.initialize();
  client.notify("textDocument/didOpen", {{"textDocument",
                                          {{"uri", Tree::uri(t.secret / "keys.py")}, {"languageId", "python"},
                                           {"version", 1}, {"text", "def api_key():\n    return 'hunter2'\n"}}}});
  json s = client.request("wafer/stats", nullptr)["result"]["workspace_index"];
  INFO(s.dump());
  CHECK(s["root"].is_null());
  CHECK(read_file(scratch / "log").find("not indexing: the workspace folder '" + t.secret.string()) !=
        std::string::npos);
  CHECK(client.shutdown_and_exit() == 0);
}

TEST_CASE("allowed roots: the whole file system is never an allowed root", "[integration]") {
  Subprocess p({wafer_binary().string(), "lsp", "--allow-root", "/"});
  CHECK(p.wait(10000) == 2);
  CHECK(p.stderr_text().find("is the whole file system") != std::string::npos);
}
