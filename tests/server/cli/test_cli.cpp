// Drives the real `wafer` binary: --version, --help, usage errors and exit codes.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <sys/wait.h>

#include "tests/support/testing.h"

namespace {

struct Run {
  int status;
  std::string out, err;
};

Run run(const std::string& args) {
  wafer::test::TempDir dir;
  std::string cmd = "'" + wafer::test::wafer_binary().string() + "' " + args + " >'" +
                    (dir / "out").string() + "' 2>'" + (dir / "err").string() + "' </dev/null";
  int raw = std::system(cmd.c_str());
  Run r{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, wafer::test::read_file(dir / "out"),
        wafer::test::read_file(dir / "err")};
  return r;
}

}  // namespace

TEST_CASE("wafer --version prints the version", "[cli]") {
  Run r = run("--version");
  CHECK(r.status == 0);
  CHECK(r.out.rfind("wafer 0.", 0) == 0);
}

TEST_CASE("wafer --help lists every subcommand", "[cli]") {
  Run r = run("--help");
  CHECK(r.status == 0);
  for (const char* c : {"lsp", "tokenize", "generate", "info", "bench"}) CHECK(r.out.find(c) != std::string::npos);
}

TEST_CASE("wafer without a command prints usage and exits 2", "[cli]") {
  Run r = run("");
  CHECK(r.status == 2);
  CHECK(r.err.find("usage") != std::string::npos);
}

TEST_CASE("an unknown command or option is one clear line and exit 2", "[cli]") {
  Run r = run("frobnicate");
  CHECK(r.status == 2);
  CHECK(r.err == "wafer: unknown command 'frobnicate' (try 'wafer --help')\n");
  Run o = run("info --nope");
  CHECK(o.status == 2);
  CHECK(o.err.find("--nope") != std::string::npos);
}
