// Content exclusion through the real `wafer lsp` binary, driven over pipes as an editor
// drives it: secret-bearing files (the built-in list, the workspace's .waferignore, the
// user's .waferignore, the `exclude` setting) are never indexed, never extra context of
// another document, never in the recent edits, and never sent to a remote backend, not
// even when the editor opens one and asks for a completion in it. `wafer info --workspace`
// lists them with their rules.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "server/platform/platform.h"
#include "server/prompt/prompt_paths.h"
#include "tests/support/fake_inference_server.h"
#include "tests/support/lsp_client.h"
#include "tests/support/testing.h"

using namespace wafer::test;
using namespace std::chrono_literals;

namespace {

// Each excluded file holds a secret value, and the Python ones define a function that
// main.py calls: the scripted engine echoes the names of the definitions in its prompt's
// extra context, and a remote request would carry the values.
const std::vector<std::string> kNames = {"marker_aws", "marker_draft", "marker_vendor", "marker_user"};
const std::vector<std::string> kSecrets = {"secret_env", "secret_rsa", "secret_yaml", "secret_aws", "secret_draft",
                                           "secret_vendor", "secret_user", "secret_edit"};
const char* kMain = "def main():\n    return gamma(2) + marker_aws() + marker_draft() + marker_vendor() + marker_user()\n\n";
const char* kPlan = "def marker_draft():\n    return gamma(1) + 'secret_draft'\n";
const char* kEdit = "def later():\n    return 'secret_edit'\n";

struct Workspace {
  TempDir dir;
  TempDir cache;  // the user's cache folder: wafer/.waferignore
  std::string uri(const std::string& name) const { return wafer::uri_from_path((dir / name).string()); }
  Workspace() {
    write_file(dir / ".git" / "HEAD", "ref: refs/heads/main\n");
    write_file(dir / "util.py", "def gamma(z):\n    return z - 3\n");
    write_file(dir / "main.py", kMain);
    write_file(dir / ".env", "API_TOKEN=secret_env\n");
    write_file(dir / "id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret_rsa\n");
    write_file(dir / "config" / "secrets.yaml", "password: secret_yaml\n");
    write_file(dir / ".aws" / "helpers.py", "def marker_aws():\n    return 'secret_aws'\n");
    write_file(dir / "drafts" / "plan.py", kPlan);
    write_file(dir / "vendor_keys.py", "def marker_vendor():\n    return 'secret_vendor'\n");
    write_file(dir / "mine.py", "def marker_user():\n    return 'secret_user'\n");
    write_file(dir / ".waferignore", "drafts/\n");
    write_file(cache / "wafer" / ".waferignore", "mine.py\n");
  }
};

// The daemon with the user's cache folder set to the workspace's (the child inherits it).
struct CacheDir {
  explicit CacheDir(const TempDir& cache) { wafer::os::set_env("XDG_CACHE_HOME", cache.path().string().c_str()); }
  ~CacheDir() { wafer::os::set_env("XDG_CACHE_HOME", nullptr); }
};

json index_stats(LspClient& c) { return c.request("wafer/stats", nullptr)["result"]; }

json wait_index(LspClient& c) {
  for (int i = 0; i < 500; ++i) {
    json s = index_stats(c);
    if (s["workspace_index"].contains("generation")) return s;
    std::this_thread::sleep_for(10ms);
  }
  FAIL("the workspace index was not built");
  return {};
}

void open(LspClient& c, const std::string& uri, const std::string& language, const std::string& text) {
  c.notify("textDocument/didOpen",
           {{"textDocument", {{"uri", uri}, {"languageId", language}, {"version", 1}, {"text", text}}}});
}

json suggest(LspClient& c, const std::string& uri, int line, int character) {
  json r = c.request("textDocument/inlineCompletion", inline_completion_params(uri, line, character, 1));
  INFO(r.dump());
  REQUIRE(r.contains("result"));
  return r["result"];
}

std::string text_of(const json& result) {
  return result["items"].empty() ? "" : result["items"][0]["insertText"].get<std::string>();
}

void check_none_of(const std::vector<std::string>& markers, const std::string& text) {
  for (const std::string& m : markers) {
    INFO(m << " in " << text);
    CHECK(text.find(m) == std::string::npos);
  }
}

// An edit in an excluded document, then one in main.py: the recent edits would carry the
// excluded text into main.py's prompt.
void edit(LspClient& c, const std::string& uri, int version, int line, const std::string& text) {
  const json at = {{"line", line}, {"character", 0}};
  const json change = {{"range", {{"start", at}, {"end", at}}}, {"text", text}};
  c.notify("textDocument/didChange",
           {{"textDocument", {{"uri", uri}, {"version", version}}}, {"contentChanges", json::array({change})}});
}

}  // namespace

TEST_CASE("exclusion: excluded files are not indexed and never extra context", "[integration]") {
  Workspace ws;
  CacheDir cache(ws.cache);
  TempDir scratch;
  write_file(scratch / "fake.json", json{{"text", "="}, {"echo_extra", true}}.dump());
  LspClient c({"--fake-engine", (scratch / "fake.json").string(), "--debounce-ms", "0"});
  c.initialize(json::object(), {{"exclude", {"vendor_keys.py"}}});
  // (initialize without a root: the repository of the first file opened is the workspace)
  open(c, ws.uri("main.py"), "python", kMain);
  json s = wait_index(c);
  INFO(s.dump());
  CHECK(s["workspace_index"]["files"] == 2);  // main.py, util.py
  // .env, id_rsa, config/secrets.yaml, .aws/ (built-in), drafts/ (.waferignore),
  // vendor_keys.py (setting), mine.py (user's .waferignore)
  CHECK(s["workspace_index"]["excluded_files"] == 7);
  const std::string plain = text_of(suggest(c, ws.uri("main.py"), 2, 0));
  CHECK(plain.find("gamma") != std::string::npos);  // the index serves
  check_none_of(kNames, plain);

  // Excluded documents open in the editor, edited: still nothing of them in main.py's prompt.
  open(c, ws.uri("drafts/plan.py"), "python", kPlan);
  open(c, ws.uri("vendor_keys.py"), "python", read_file(ws.dir / "vendor_keys.py"));
  edit(c, ws.uri("drafts/plan.py"), 2, 2, kEdit);
  edit(c, ws.uri("main.py"), 2, 2, "\n");  // another file: the draft's region would close into the ring
  const std::string with_open = text_of(suggest(c, ws.uri("main.py"), 2, 0));
  CHECK(with_open.find("gamma") != std::string::npos);
  check_none_of(kNames, with_open);
  CHECK(with_open.find("later") == std::string::npos);  // the draft's edit, as a recent chunk

  // A completion in the excluded document: local, from its own text alone (gamma, defined
  // in util.py, is not shown to it).
  const json own = suggest(c, ws.uri("drafts/plan.py"), 4, 0);
  CHECK(text_of(own) == "=none");
  json stats = index_stats(c);
  CHECK(stats["counts"]["excluded_documents_requests"] == 1);
  CHECK(stats["counts"]["excluded_documents_opened"] == 2);
  // completeExcludedFiles off: none at all.
  c.notify("workspace/didChangeConfiguration",
           {{"settings", {{"exclude", {"vendor_keys.py"}}, {"completeExcludedFiles", false}}}});
  CHECK(suggest(c, ws.uri("drafts/plan.py"), 4, 0)["items"].empty());
  stats = index_stats(c);
  CHECK(stats["counts"]["refused_excluded"] == 1);
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("exclusion: nothing excluded reaches a remote backend", "[integration]") {
  Workspace ws;
  CacheDir cache(ws.cache);
  FakeInferenceServer server;
  LspClient c({"--backend", "llama-server", "--backend-url", server.url(), "--debounce-ms", "0", "--exclude",
               "vendor_keys.py"});
  c.initialize();
  open(c, ws.uri("main.py"), "python", kMain);
  wait_index(c);
  // The editor opens every excluded file and edits one.
  const std::vector<std::pair<std::string, std::string>> excluded = {
      {".env", "dotenv"},  {"id_rsa", "plaintext"},      {"config/secrets.yaml", "yaml"}, {".aws/helpers.py", "python"},
      {"drafts/plan.py", "python"}, {"vendor_keys.py", "python"}, {"mine.py", "python"}};
  for (const auto& [name, language] : excluded) open(c, ws.uri(name), language, read_file(ws.dir / name));
  edit(c, ws.uri("drafts/plan.py"), 2, 2, kEdit);
  edit(c, ws.uri("main.py"), 2, 2, "\n");

  REQUIRE(suggest(c, ws.uri("main.py"), 2, 0)["items"].size() == 1);
  auto reqs = server.requests();
  REQUIRE(reqs.size() == 1);
  const std::string sent = reqs[0].body.dump();
  CHECK(sent.find("gamma") != std::string::npos);  // the index's extra context is sent
  check_none_of(kSecrets, sent);

  // Asked for a completion inside each excluded file: nothing is sent, nothing is shown.
  for (const auto& [name, language] : excluded) {
    INFO(name);
    CHECK(suggest(c, ws.uri(name), 0, 0)["items"].empty());
  }
  CHECK(server.requests().size() == 1);
  json stats = index_stats(c);
  CHECK(stats["counts"]["excluded_documents_requests"] == static_cast<int>(excluded.size()));
  CHECK(stats["counts"]["refused_excluded"] == static_cast<int>(excluded.size()));
  CHECK(c.shutdown_and_exit() == 0);
  for (const FakeInferenceServer::Request& r : server.requests()) check_none_of(kSecrets, r.head + r.body.dump());
}

TEST_CASE("exclusion: wafer info --workspace lists what is excluded and why", "[integration]") {
  Workspace ws;
  CacheDir cache(ws.cache);
  const std::string dir = "'" + ws.dir.path().string() + "'";
  auto r = run_wafer("info --workspace " + dir + " --exclude vendor_keys.py");
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  for (const char* line : {"  .aws/  (built-in: .aws/)", "  .env  (built-in: .env)", "  id_rsa  (built-in: id_rsa*)",
                           "  config/secrets.yaml  (built-in: secrets.yaml)",
                           "  drafts/  (workspace .waferignore: drafts/)",
                           "  mine.py  (user .waferignore: mine.py)", "  vendor_keys.py  (exclude setting: vendor_keys.py)"})
    CHECK(r.out.find(line) != std::string::npos);
  CHECK(r.out.find("excluded      7 ") != std::string::npos);
  CHECK(r.out.find("main.py  (") == std::string::npos);

  auto j = run_wafer("info --json --workspace " + dir);
  REQUIRE(j.status == 0);
  const json listed = json::parse(j.out);
  CHECK(listed["excluded"].size() == 6);  // without the setting
  CHECK(listed["workspace_file_found"] == true);
  CHECK(listed["user_file_found"] == true);
  CHECK(listed["excluded"][0] == json{{"path", ".aws/"}, {"source", "built-in"}, {"pattern", ".aws/"}});

  CHECK(run_wafer("info --workspace " + dir + "/nothing-here").status == 1);
}
