// The security posture the README promises, checked against the real `wafer lsp`: stdio by
// default with no sockets at all; model paths from the client validated (a FIFO, a
// directory or a non-GGUF file is a message, never a hang or a crash); client strings never
// reach a shell; no process spawning or shell calls in the daemon's sources. (TCP only on
// loopback unless --allow-remote: test_lsp_session.cpp.)
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "tests/support/lsp_client.h"

using namespace wafer::test;
namespace fs = std::filesystem;

namespace {

bool is_show_message(const json& m) { return m.value("method", "") == "window/showMessage"; }

// The kinds of file descriptors the process holds: "socket", "pipe", "anon_inode", ...
std::vector<std::string> fd_kinds(int pid) {
  std::vector<std::string> kinds;
  for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    std::error_code ec;
    std::string target = fs::read_symlink(e.path(), ec).string();
    if (!ec) kinds.push_back(target.substr(0, target.find(':')));
  }
  return kinds;
}

}  // namespace

TEST_CASE("security: the stdio daemon holds no socket", "[integration][security]") {
  LspClient c({});
  c.initialize();
  c.notify("textDocument/didOpen",
           {{"textDocument", {{"uri", "file:///a.py"}, {"languageId", "python"}, {"version", 1}, {"text", "x = 1\n"}}}});
  c.request("textDocument/inlineCompletion", {{"textDocument", {{"uri", "file:///a.py"}}},
                                              {"position", {{"line", 0}, {"character", 5}}}});
  std::vector<std::string> kinds = fd_kinds(c.process().pid());
  INFO(Catch::Detail::stringify(kinds));
  CHECK(std::count(kinds.begin(), kinds.end(), "socket") == 0);
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("security: model paths from the client are validated, never executed", "[integration][security]") {
  TempDir dir;
  fs::path fifo = dir / "model.fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  write_file(dir / "notes.txt", "not a model");
  fs::path marker = dir / "pwned";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {fifo.string(), "not a regular file"},
      {dir.path().string(), "not a regular file"},
      {(dir / "notes.txt").string(), "notes.txt"},
      {"$(touch " + marker.string() + ")", "no such file"},
      {"x; touch " + marker.string(), "no such file"},
  };
  for (const auto& [path, expected] : cases) {
    INFO(path);
    LspClient c({});
    c.initialize(json::object(), {{"model", path}});
    auto shown = c.wait_for(is_show_message, 10000);  // a FIFO must not block the load
    REQUIRE(shown);
    CHECK_THAT((*shown)["params"]["message"].get<std::string>(),
               Catch::Contains("cannot use the model") && Catch::Contains(expected));
    CHECK(c.shutdown_and_exit() == 0);
  }
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("security: the daemon's sources call no shell and spawn no process", "[security]") {
  // `wafer bench` starts the command line its user typed (server/benchtool/bench_process.cpp,
  // through the child processes of server/platform/); nothing else may start processes, and
  // nothing at all may go through a shell.
  fs::path root = fs::path(__FILE__).parent_path() / ".." / "..";
  const std::regex shell(R"(\b(system|popen|execl|execlp|execle|posix_spawnp?)\s*\()");
  const std::regex spawn(R"(\b(fork|vfork|execvp?e?)\s*\()");
  int files = 0;
  for (const char* folder : {"server", "engine"})
    for (const auto& e : fs::recursive_directory_iterator(root / folder)) {
      if (e.path().extension() != ".cpp" && e.path().extension() != ".h") continue;
      std::ifstream in(e.path());
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      INFO(e.path().string());
      CHECK_FALSE(std::regex_search(text, shell));
      const fs::path dir = e.path().parent_path();
      const bool spawns = e.path().filename() == "bench_process.cpp" ||
                          (dir.filename() == "platform" && dir.parent_path().filename() == "server");
      if (!spawns) CHECK_FALSE(std::regex_search(text, spawn));
      ++files;
    }
  CHECK(files > 50);
}
