// `wafer lsp --listen` without an address listens on a Unix-domain socket in a folder only
// the user can enter (server/cli/listen_socket.h): the folder is 0700, the socket 0600,
// the client must still send the token first, the socket is gone after the daemon exits,
// a second daemon does not take a live socket over, and a dead daemon's socket is replaced.
// Each client is a small Python AF_UNIX client, as an editor would connect.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <thread>

#include "server/platform/platform.h"
#include "tests/support/listen_wire.h"
#include "tests/support/lsp_client.h"

using namespace wafer::test;
namespace fs = std::filesystem;

namespace {

// Connects to the socket, sends `first` and prints everything the daemon sent until it
// closed the connection.
std::string run_client(const std::string& socket, const std::string& first) {
  Subprocess client({"/usr/bin/python3", "-c",
                     "import socket,sys\n"
                     "s=socket.socket(socket.AF_UNIX,socket.SOCK_STREAM)\n"
                     "s.connect(sys.argv[1])\n"
                     "s.settimeout(20)\n"
                     "s.sendall(sys.stdin.buffer.read())\n"
                     "data=b''\n"
                     "while True:\n"
                     "  try: d=s.recv(65536)\n"
                     "  except OSError: break\n"
                     "  if not d: break\n"
                     "  data+=d\n"
                     "sys.stdout.write(data.decode('utf-8','replace'))\n",
                     socket});
  client.write(first);
  client.close_stdin();
  std::string out;
  while (auto bytes = client.read_some(20000)) {
    if (bytes->empty()) break;
    out += *bytes;
  }
  CHECK(client.wait(20000) == 0);
  return out;
}

// The runtime and cache folders of the daemons, inside a TempDir.
struct Folders {
  Folders() {
    fs::create_directories(run);
    fs::permissions(run, fs::perms::owner_all);
    wafer::os::set_env("XDG_RUNTIME_DIR", run.string().c_str());
    wafer::os::set_env("XDG_CACHE_HOME", (dir / "cache").string().c_str());
  }
  ~Folders() {
    wafer::os::set_env("XDG_RUNTIME_DIR", nullptr);
    wafer::os::set_env("XDG_CACHE_HOME", nullptr);
  }
  TempDir dir;
  fs::path run = dir / "run";
  fs::path socket = run / "wafer" / "lsp.sock";
};

// A daemon with `--listen` and `extra`; waits for the lines with its socket and token file.
struct Daemon {
  explicit Daemon(std::vector<std::string> extra = {}) : proc(argv(std::move(extra))) {
    for (int i = 0; i < 2000 && (socket.empty() || token_file.empty()); ++i) {
      std::smatch m;
      const std::string err = proc.stderr_text();
      if (std::regex_search(err, m, std::regex("listening on (/[^\\n]+)\\n"))) socket = m[1].str();
      if (std::regex_search(err, m, std::regex("token file ([^\\n]+)\\n"))) token_file = m[1].str();
      if (socket.empty() || token_file.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    INFO(proc.stderr_text());
    REQUIRE(!socket.empty());
    REQUIRE(!token_file.empty());
  }
  static std::vector<std::string> argv(std::vector<std::string> extra) {
    std::vector<std::string> a = {wafer_binary().string(), "lsp", "--listen"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  std::string token() const { return token_in(token_file); }
  Subprocess proc;
  std::string socket, token_file;
};

int mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("listen socket: the default socket is the owner's only, needs the token and goes away at exit",
          "[integration]") {
  Folders f;
  Daemon d;
  CHECK(d.socket == f.socket.string());
  CHECK(mode_of(f.run / "wafer") == 0700);
  struct stat st {};
  REQUIRE(::lstat(d.socket.c_str(), &st) == 0);
  CHECK(S_ISSOCK(st.st_mode));
  CHECK((st.st_mode & 0777) == 0600);

  CHECK(refused_with(run_client(d.socket, kInitialize), "expected 'wafer-token <token>'"));
  std::string wrong = d.token();
  wrong[5] = wrong[5] == 'a' ? 'b' : 'a';
  CHECK(refused_with(run_client(d.socket, "wafer-token " + wrong + "\r\n" + kInitialize), "wrong token"));

  std::string out = run_client(d.socket, "wafer-token " + d.token() + "\r\n" + kInitialize + kShutdownExit);
  CHECK(out.find("\"inlineCompletionProvider\":true") != std::string::npos);
  CHECK(d.proc.wait(10000) == 0);
  CHECK(!fs::exists(f.socket));
  CHECK(!fs::exists(d.token_file));
}

TEST_CASE("listen socket: a live socket is not taken over, a dead daemon's is replaced", "[integration]") {
  Folders f;
  {
    Daemon first;
    Subprocess second(Daemon::argv({}));
    CHECK(second.wait(10000) == 1);
    CHECK(second.stderr_text().find("another daemon listens on " + f.socket.string()) != std::string::npos);
    // The first daemon still serves.
    std::string out = run_client(first.socket, "wafer-token " + first.token() + "\r\n" + kInitialize + kShutdownExit);
    CHECK(out.find("\"inlineCompletionProvider\":true") != std::string::npos);
    CHECK(first.proc.wait(10000) == 0);
  }
  {
    Daemon killed;
    ::kill(killed.proc.pid(), SIGKILL);
    killed.proc.wait(10000);
    REQUIRE(fs::exists(f.socket));  // left behind
    Daemon next;
    CHECK(next.socket == f.socket.string());
    std::string out = run_client(next.socket, "wafer-token " + next.token() + "\r\n" + kInitialize + kShutdownExit);
    CHECK(out.find("\"inlineCompletionProvider\":true") != std::string::npos);
    CHECK(next.proc.wait(10000) == 0);
  }
}

TEST_CASE("listen socket: a socket path must be in a folder closed to others", "[integration]") {
  Folders f;
  const fs::path open_dir = f.dir / "open";
  fs::create_directories(open_dir);
  fs::permissions(open_dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec);
  Subprocess refused(Daemon::argv({(open_dir / "s.sock").string()}));
  CHECK(refused.wait(10000) == 1);
  CHECK(refused.stderr_text().find("other users may enter the folder") != std::string::npos);
  CHECK(!fs::exists(open_dir / "s.sock"));

  const fs::path own = f.dir / "own";
  fs::create_directories(own);
  fs::permissions(own, fs::perms::owner_all);
  Daemon d({(own / "s.sock").string()});
  CHECK(d.socket == (own / "s.sock").string());
  std::string out = run_client(d.socket, "wafer-token " + d.token() + "\r\n" + kInitialize + kShutdownExit);
  CHECK(out.find("\"inlineCompletionProvider\":true") != std::string::npos);
  CHECK(d.proc.wait(10000) == 0);
  CHECK(!fs::exists(own / "s.sock"));
}

TEST_CASE("listen socket: by default a client's workspace must be in the home folder, never /", "[integration]") {
  Folders f;
  const fs::path home = f.dir / "home", elsewhere = f.dir / "elsewhere";
  fs::create_directories(home / "project");
  fs::create_directories(elsewhere);
  const std::string old_home = std::getenv("HOME") ? std::getenv("HOME") : "";
  wafer::os::set_env("HOME", home.string().c_str());
  Daemon d;
  wafer::os::set_env("HOME", old_home.empty() ? nullptr : old_home.c_str());
  auto init = [](int id, const std::string& root) {
    return frame(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                 R"(,"method":"initialize","params":{"capabilities":{},"rootUri":")" + root + R"("}})");
  };
  std::string out = run_client(d.socket, "wafer-token " + d.token() + "\r\n" + init(10, "file:///") +
                                             init(11, "file://" + elsewhere.string()) +
                                             init(12, "file://" + (home / "project").string()) + kShutdownExit);
  INFO(out);
  CHECK(std::regex_search(out, std::regex(R"(\{"error":\{"code":-32602,"message":"[^"]*whole file system[^"]*"\},"id":10)")));
  CHECK(std::regex_search(out, std::regex(R"(\{"error":\{"code":-32602,"message":"[^"]*outside the folders[^"]*"\},"id":11)")));
  CHECK(out.find(R"("id":12,"jsonrpc":"2.0","result":{"capabilities")") != std::string::npos);
  CHECK(d.proc.wait(10000) == 0);
}
