// `wafer lsp --listen` serves only a client that first sends the token line
// (server/lsp/listen_token.h). Each client here is a small Python socket client, as an
// editor would connect: the right token is served; no token, a wrong one, one that comes
// after the timeout, an LSP message first, and a second client while one is served are
// each answered with one `wafer-error:` line and closed, without any LSP reply.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "server/platform/platform.h"
#include "tests/support/listen_wire.h"
#include "tests/support/lsp_client.h"

using namespace wafer::test;
namespace fs = std::filesystem;

namespace {

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) out += {digits[c >> 4], digits[c & 15]};
  return out;
}

// A client that connects, waits delay_ms, sends `first`, prints "READY" once it has read
// `ready_marker` (if any) and waits for a line on its stdin, then sends `then`, and prints
// everything the daemon sent until it closed the connection.
std::vector<std::string> client_argv(int port, int delay_ms, const std::string& first, const std::string& ready_marker = "",
                                     const std::string& then = "") {
  return {"/usr/bin/python3", "-c",
          "import socket,sys,time\n"
          "s=socket.create_connection(('127.0.0.1',int(sys.argv[1])))\n"
          "s.settimeout(20)\n"
          "time.sleep(int(sys.argv[2])/1000)\n"
          "def send(b):\n"
          "  try: s.sendall(b)\n"
          "  except OSError: pass\n"
          "send(bytes.fromhex(sys.argv[3]))\n"
          "data=b''\n"
          "marker=bytes.fromhex(sys.argv[4])\n"
          "if marker:\n"
          "  while marker not in data:\n"
          "    d=s.recv(65536)\n"
          "    if not d: break\n"
          "    data+=d\n"
          "  sys.stdout.write('READY\\n'); sys.stdout.flush()\n"
          "  sys.stdin.readline()\n"
          "  send(bytes.fromhex(sys.argv[5]))\n"
          "while True:\n"
          "  try: d=s.recv(65536)\n"
          "  except OSError: break\n"
          "  if not d: break\n"
          "  data+=d\n"
          "sys.stdout.write(data.decode('utf-8','replace'))\n",
          std::to_string(port), std::to_string(delay_ms), hex(first), hex(ready_marker), hex(then)};
}

// Everything the client printed until it exited.
std::string output_of(Subprocess& p) {
  std::string out;
  while (auto bytes = p.read_some(20000)) {
    if (bytes->empty()) break;
    out += *bytes;
  }
  return out;
}

std::string run_client(int port, int delay_ms, const std::string& first) {
  Subprocess client(client_argv(port, delay_ms, first));
  std::string out = output_of(client);
  CHECK(client.wait(20000) == 0);
  return out;
}

// A daemon on a free loopback port; waits for the lines with its port and token file.
struct Daemon {
  explicit Daemon(std::vector<std::string> extra) : proc(argv(std::move(extra))) {
    for (int i = 0; i < 2000 && (port == 0 || token_file.empty()); ++i) {
      std::smatch m;
      const std::string err = proc.stderr_text();
      if (std::regex_search(err, m, std::regex("listening on 127\\.0\\.0\\.1:(\\d+)"))) port = std::stoi(m[1]);
      if (std::regex_search(err, m, std::regex("token file ([^\\n]+)\\n"))) token_file = m[1].str();
      if (port == 0 || token_file.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    INFO(proc.stderr_text());
    REQUIRE(port > 0);
    REQUIRE(!token_file.empty());
  }
  static std::vector<std::string> argv(std::vector<std::string> extra) {
    std::vector<std::string> a = {wafer_binary().string(), "lsp", "--listen", "127.0.0.1:0"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  std::string token() const { return token_in(token_file); }
  Subprocess proc;
  int port = 0;
  std::string token_file;
};

// The cache folder, where the daemon writes its token file, inside a TempDir.
struct CacheHome {
  CacheHome() { wafer::os::set_env("XDG_CACHE_HOME", dir.path().string().c_str()); }
  ~CacheHome() { wafer::os::set_env("XDG_CACHE_HOME", nullptr); }
  TempDir dir;
};

}  // namespace

TEST_CASE("listen token: the generated token file is the owner's only and goes away at exit", "[integration]") {
  CacheHome cache;
  Daemon d({});
  CHECK(fs::path(d.token_file).parent_path() == cache.dir.path() / "wafer");
  struct stat st {};
  REQUIRE(::stat(d.token_file.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(std::regex_match(d.token(), std::regex("[0-9a-f]{64}")));

  std::string out = run_client(d.port, 0, "wafer-token " + d.token() + "\r\n" + kInitialize + kShutdownExit);
  CHECK(out.find("\"inlineCompletionProvider\":true") != std::string::npos);
  CHECK(out.find("\"id\":2,\"jsonrpc\":\"2.0\",\"result\":null") != std::string::npos);
  CHECK(d.proc.wait(10000) == 0);
  CHECK(!fs::exists(d.token_file));
}

TEST_CASE("listen token: clients without the right token are refused and get no reply", "[integration]") {
  CacheHome cache;
  Daemon d({"--token-timeout-ms", "400"});
  const std::string token = d.token();
  std::string wrong = token;
  wrong[10] = wrong[10] == 'a' ? 'b' : 'a';

  SECTION("no token: nothing sent within the timeout") {
    CHECK(refused_with(run_client(d.port, 0, ""), "no token line within 400 ms"));
  }
  SECTION("an LSP message first") {
    CHECK(refused_with(run_client(d.port, 0, kInitialize), "expected 'wafer-token <token>'"));
  }
  SECTION("a wrong token") {
    CHECK(refused_with(run_client(d.port, 0, "wafer-token " + wrong + "\r\n" + kInitialize), "wrong token"));
  }
  SECTION("a truncated token") {
    CHECK(refused_with(run_client(d.port, 0, "wafer-token " + token.substr(0, 32) + "\r\n" + kInitialize),
                       "wrong token"));
  }
  SECTION("the right token, after the timeout") {
    CHECK(refused_with(run_client(d.port, 1200, "wafer-token " + token + "\r\n" + kInitialize),
                       "no token line within 400 ms"));
  }
  // The refused clients took no slot: the right token is still served, and a client that
  // comes while it is served is refused even with the token.
  Subprocess good(client_argv(d.port, 0, "wafer-token " + token + "\r\n" + kInitialize, "inlineCompletionProvider",
                              kShutdownExit));
  std::string ready;
  while (ready.find("READY") == std::string::npos) {
    auto bytes = good.read_some(20000);
    REQUIRE(bytes);
    REQUIRE(!bytes->empty());
    ready += *bytes;
  }
  CHECK(refused_with(run_client(d.port, 0, "wafer-token " + token + "\r\n" + kInitialize),
                     "the daemon already serves a client"));
  good.write("go\n");
  std::string out = output_of(good);
  CHECK(out.find("\"id\":2,\"jsonrpc\":\"2.0\",\"result\":null") != std::string::npos);
  CHECK(good.wait(10000) == 0);
  CHECK(d.proc.wait(10000) == 0);
  CHECK(d.proc.stderr_text().find("refused a client") != std::string::npos);
}

TEST_CASE("listen token: --token-file is used, and refused when others may read it", "[integration]") {
  TempDir dir;
  const fs::path file = dir / "token";
  std::ofstream(file) << "my-own-token-0123456789\n";

  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  Subprocess exposed({wafer_binary().string(), "lsp", "--listen", "127.0.0.1:0", "--token-file", file.string()});
  CHECK(exposed.wait(10000) == 1);
  CHECK(exposed.stderr_text().find("chmod 600") != std::string::npos);
  CHECK(exposed.stderr_text().find("listening on") == std::string::npos);

  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
  Daemon d({"--token-file", file.string()});
  CHECK(d.token_file == file.string());
  CHECK(refused_with(run_client(d.port, 0, "wafer-token my-own-token\r\n"), "wrong token"));
  std::string out = run_client(d.port, 0, "wafer-token my-own-token-0123456789\n" + kInitialize + kShutdownExit);
  CHECK(out.find("\"inlineCompletionProvider\":true") != std::string::npos);
  CHECK(d.proc.wait(10000) == 0);
  CHECK(fs::exists(file));  // the user's own file is left alone
}
