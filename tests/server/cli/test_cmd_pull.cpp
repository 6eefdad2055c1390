// Drives the real `wafer pull` binary against a loopback HTTP server started by the test:
// a full download, resuming after a broken transfer and after an interrupted run, a server
// that ignores ranges, 404, a wrong checksum, a body that is not GGUF, an already cached
// file, a full disk, and usage errors. Nothing here touches the internet.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "tests/support/fixtures/synthetic_model.h"
#include "server/pull/sha256.h"
#include "tests/support/loopback_http.h"
#include "tests/support/testing.h"

using namespace wafer;
namespace fs = std::filesystem;

namespace {

// A small but real GGUF model, as bytes.
std::string model_bytes() {
  test::TempDir dir;
  SyntheticModelSpec spec;
  spec.n_layer = 1;
  REQUIRE(write_synthetic_model(spec, dir / "m.gguf").ok());
  return test::read_file(dir / "m.gguf");
}

std::string sha(const std::string& bytes) {
  Sha256 h;
  h.update(bytes);
  return h.hex_digest();
}

test::WaferRun pull(const std::string& url, const fs::path& cache, const std::string& extra = "") {
  return test::run_wafer("pull '" + url + "' --cache-dir '" + cache.string() + "' " + extra);
}

size_t files_in(const fs::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("wafer pull downloads, verifies and caches a model, a second pull reuses it", "[cli][pull]") {
  const std::string bytes = model_bytes();
  test::LoopbackHttp server;
  server.serve("/m/tiny.gguf", {bytes});
  test::TempDir cache;

  auto r = pull(server.url("/m/tiny.gguf"), cache.path(), "--sha256 " + sha(bytes));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out == (cache / "tiny.gguf").string() + "\n");
  CHECK(test::read_file(cache / "tiny.gguf") == bytes);
  CHECK_FALSE(fs::exists(cache / "tiny.gguf.part"));
  CHECK(r.err.find("tiny.gguf") != std::string::npos);      // progress lines
  CHECK(r.err.find("100%") != std::string::npos);
  CHECK(r.err.find("sha256 verified") != std::string::npos);

  auto again = pull(server.url("/m/tiny.gguf"), cache.path(), "--sha256 " + sha(bytes));
  CHECK(again.status == 0);
  CHECK(again.out == r.out);
  CHECK(again.err.find("already downloaded") != std::string::npos);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("wafer pull resumes a transfer that breaks off, with a Range request", "[cli][pull]") {
  const std::string bytes = model_bytes();
  test::LoopbackHttp server;
  test::LoopbackHttp::Route route{bytes};
  route.cut_responses = 1;
  route.cut_after = bytes.size() / 3;
  server.serve("/flaky.gguf", route);
  test::TempDir cache;

  auto r = pull(server.url("/flaky.gguf"), cache.path(), "--sha256 " + sha(bytes));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(test::read_file(cache / "flaky.gguf") == bytes);
  auto log = server.requests();
  REQUIRE(log.size() == 2);
  CHECK(log[0] == "GET /flaky.gguf");
  CHECK(log[1] == "GET /flaky.gguf range=" + std::to_string(bytes.size() / 3) + "-");
}

TEST_CASE("wafer pull continues the .part file an interrupted run left behind", "[cli][pull]") {
  const std::string bytes = model_bytes();
  test::LoopbackHttp server;
  server.serve("/m.gguf", {bytes});
  test::TempDir cache;
  test::write_file(cache / "m.gguf.part", bytes.substr(0, 1000));

  auto r = pull(server.url("/m.gguf"), cache.path());
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(test::read_file(cache / "m.gguf") == bytes);
  CHECK(server.requests() == std::vector<std::string>{"GET /m.gguf range=1000-"});
  CHECK(r.err.find("only the GGUF structure was checked") != std::string::npos);
}

TEST_CASE("wafer pull starts over when the server ignores the range", "[cli][pull]") {
  const std::string bytes = model_bytes();
  test::LoopbackHttp server;
  test::LoopbackHttp::Route route{bytes};
  route.ranges = false;
  server.serve("/m.gguf", route);
  test::TempDir cache;
  test::write_file(cache / "m.gguf.part", "stale bytes of some other file");

  auto r = pull(server.url("/m.gguf"), cache.path(), "--sha256 " + sha(bytes));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(test::read_file(cache / "m.gguf") == bytes);
}

TEST_CASE("wafer pull: 404, wrong checksum and a non-GGUF body fail and leave nothing behind", "[cli][pull]") {
  const std::string bytes = model_bytes();
  test::LoopbackHttp server;
  server.serve("/m.gguf", {bytes});
  server.serve("/page.gguf", {"<html><body>Please log in</body></html>\n"});
  test::TempDir cache;

  auto missing = pull(server.url("/none.gguf"), cache.path());
  CHECK(missing.status == 1);
  CHECK(missing.out.empty());
  CHECK(missing.err.find("wafer pull: HTTP 404 from " + server.url("/none.gguf")) != std::string::npos);

  auto wrong = pull(server.url("/m.gguf"), cache.path(), "--sha256 " + std::string(64, '0'));
  CHECK(wrong.status == 1);
  CHECK(wrong.err.find("sha256 mismatch: got " + sha(bytes)) != std::string::npos);
  CHECK(wrong.err.find("the download was deleted") != std::string::npos);

  auto page = pull(server.url("/page.gguf"), cache.path());
  CHECK(page.status == 1);
  CHECK(page.err.find("not a usable GGUF model") != std::string::npos);
  CHECK(page.err.find("not a GGUF file") != std::string::npos);

  CHECK(files_in(cache.path()) == 0);
}

TEST_CASE("wafer pull: usage errors and the catalogue listing", "[cli][pull]") {
  auto none = test::run_wafer("pull");
  CHECK(none.status == 2);
  CHECK(none.err.find("expected one NAME or URL") != std::string::npos);

  auto unknown = test::run_wafer("pull no-such-model");
  CHECK(unknown.status == 2);
  CHECK(unknown.err.find("unknown model 'no-such-model'") != std::string::npos);

  auto list = test::run_wafer("pull --list");
  CHECK(list.status == 0);
  CHECK(list.out.find("qwen2.5-coder-1.5b") != std::string::npos);
  CHECK(list.out.find("1570 MiB") != std::string::npos);

  auto help = test::run_wafer("pull --help");
  CHECK(help.status == 0);
  CHECK(help.out.find("--sha256") != std::string::npos);
  CHECK(help.out.find("WAFER_CATALOG=FILE") != std::string::npos);
  CHECK(help.out.find("HF_ENDPOINT=URL") != std::string::npos);
}

TEST_CASE("wafer pull with $WAFER_CATALOG and $HF_ENDPOINT: names from the file, URLs on the mirror", "[cli][pull]") {
  const std::string bytes = model_bytes();
  test::LoopbackHttp server;
  server.serve("/team/m.gguf", {bytes});
  server.serve("/ggml-org/Qwen2.5-Coder-0.5B-Q8_0-GGUF/resolve/main/qwen2.5-coder-0.5b-q8_0.gguf", {bytes});
  test::TempDir dir;
  test::write_file(dir / "team.txt", "# the team's models\n"
                                     "team-tiny " + std::to_string(bytes.size()) + " " + sha(bytes) + " " +
                                         server.url("/team/m.gguf") + " team-tiny.gguf | MIT | for tests\n");
  {
    test::ScopedEnv file("WAFER_CATALOG", (dir / "team.txt").string().c_str());
    auto list = test::run_wafer("pull --list");
    CHECK(list.status == 0);
    CHECK(list.out.find("team-tiny") != std::string::npos);
    CHECK(list.out.find("MIT") != std::string::npos);
    CHECK(list.out.find("for tests") != std::string::npos);
    CHECK(list.out.find("qwen2.5-coder-1.5b") == std::string::npos);

    auto r = pull("team-tiny", dir / "cache");
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(test::read_file(dir / "cache" / "team-tiny.gguf") == bytes);
    CHECK(r.err.find("sha256 verified") != std::string::npos);

    auto builtin = pull("qwen2.5-coder-1.5b", dir / "cache");
    CHECK(builtin.status == 2);
    CHECK(builtin.err.find("unknown model 'qwen2.5-coder-1.5b': give an http(s) URL or one of team-tiny") != std::string::npos);

    test::write_file(dir / "team.txt", "team-tiny 12 nothex " + server.url("/team/m.gguf") + "\n");
    auto bad = pull("team-tiny", dir / "cache2");
    CHECK(bad.status == 1);
    CHECK(bad.err == "wafer pull: WAFER_CATALOG: " + (dir / "team.txt").string() +
                         ":1: SHA256 must be 64 hex digits, got 'nothex'\n");
    CHECK_FALSE(fs::exists(dir / "cache2"));
    auto bad_list = test::run_wafer("pull --list");
    CHECK(bad_list.status == 1);
    CHECK(bad_list.err.find("team.txt:1: SHA256") != std::string::npos);
    CHECK(pull(server.url("/team/m.gguf"), dir / "cache2").status == 0);  // a URL needs no catalogue
  }
  // $HF_ENDPOINT: the built-in catalogue's file from the mirror (here the loopback server;
  // the size and digest do not match the small file, so it is refused after the download).
  test::ScopedEnv endpoint("HF_ENDPOINT", server.url("").c_str());
  auto mirrored = pull("qwen2.5-coder-0.5b", dir / "cache3");
  CHECK(mirrored.status == 1);
  CHECK(mirrored.err.find("wafer pull: " + server.url("/ggml-org/Qwen2.5-Coder-0.5B-Q8_0-GGUF/resolve/main/")) !=
        std::string::npos);
  CHECK(mirrored.err.find("size is " + std::to_string(bytes.size()) + " bytes, expected 531068128") != std::string::npos);
  CHECK(server.requests().back() == "GET /ggml-org/Qwen2.5-Coder-0.5B-Q8_0-GGUF/resolve/main/qwen2.5-coder-0.5b-q8_0.gguf");
  test::ScopedEnv bad_endpoint("HF_ENDPOINT", "hf-mirror.com");
  auto refused = pull("qwen2.5-coder-0.5b", dir / "cache3");
  CHECK(refused.status == 1);
  CHECK(refused.err.find("HF_ENDPOINT: expected a base URL") != std::string::npos);
}

TEST_CASE("wafer pull --with-draft: the model and the one that drafts for it, each path on a line", "[cli][pull]") {
  const std::string big = model_bytes();
  SyntheticModelSpec spec;
  spec.n_layer = 2;
  test::TempDir tmp;
  REQUIRE(write_synthetic_model(spec, tmp / "small.gguf").ok());
  const std::string small = test::read_file(tmp / "small.gguf");
  REQUIRE(small != big);
  test::LoopbackHttp server;
  server.serve("/big.gguf", {big});
  server.serve("/small.gguf", {small});
  auto line = [&](const std::string& name, const std::string& bytes, const std::string& tail) {
    return name + " " + std::to_string(bytes.size()) + " " + sha(bytes) + " " + server.url("/" + name + ".gguf") + tail;
  };
  test::write_file(tmp / "team.txt", line("small", small, "\n") + line("big", big, " draft=small | MIT\n"));
  test::ScopedEnv file("WAFER_CATALOG", (tmp / "team.txt").string().c_str());

  auto list = test::run_wafer("pull --list");
  CHECK(list.status == 0);
  CHECK(list.out.find("DRAFT") != std::string::npos);
  const std::string big_row = list.out.substr(list.out.find("\nbig "));
  CHECK(big_row.substr(0, big_row.find('\n', 1)).find(" small ") != std::string::npos);  // its draft

  auto alone = pull("big", tmp / "c1");  // a hint, and only the model
  INFO(alone.err);
  REQUIRE(alone.status == 0);
  CHECK(alone.out == (tmp / "c1" / "big.gguf").string() + "\n");
  CHECK(alone.err.find("small drafts for this model") != std::string::npos);
  CHECK(alone.err.find("wafer pull big --with-draft") != std::string::npos);
  CHECK_FALSE(fs::exists(tmp / "c1" / "small.gguf"));

  auto both = pull("big", tmp / "c2", "--with-draft");
  INFO(both.err);
  REQUIRE(both.status == 0);
  CHECK(both.out == (tmp / "c2" / "big.gguf").string() + "\n" + (tmp / "c2" / "small.gguf").string() + "\n");
  CHECK(test::read_file(tmp / "c2" / "small.gguf") == small);
  CHECK(both.err.find("drafts for this model") == std::string::npos);

  auto none = pull("small", tmp / "c3", "--with-draft");  // nothing drafts for the small one
  CHECK(none.status == 2);
  CHECK(none.err == "wafer pull: --with-draft: the catalogue names no model that drafts for 'small'\n");
  CHECK_FALSE(fs::exists(tmp / "c3"));
}

TEST_CASE("wafer pull on a full disk: a clear error and no partial file left", "[cli][pull]") {
  // A 64 KiB tmpfs mounted in a private mount namespace (root's own, or inside a user
  // namespace for any other user where the kernel allows it; it goes away with the process):
  // the download is several times larger. unshare is part of util-linux, which every Debian
  // system has.
  REQUIRE(std::system("command -v unshare >/dev/null 2>&1") == 0);
  const std::string unshare = geteuid() == 0 ? "unshare -m" : "unshare -r -m";
  if (std::system((unshare + " true >/dev/null 2>&1").c_str()) != 0)
    test::skip_test("this kernel refuses mount namespaces to this user (" + unshare + ")");
  const std::string bytes = model_bytes();
  REQUIRE(bytes.size() > 4 * 64 * 1024);
  test::LoopbackHttp server;
  server.serve("/big.gguf", {bytes});
  test::TempDir dir;
  const fs::path disk = dir / "disk";
  fs::create_directory(disk);
  // Runs the pull on the small disk, then lists what it left there (the mount is gone after).
  const std::string script = "mount -t tmpfs -o size=64k tmpfs \"$0\" || exit 99; \"$1\" pull \"$2\" --cache-dir \"$0\"; "
                             "status=$?; ls -A \"$0\" >\"$3\"; exit $status";
  const std::string cmd = unshare + " sh -c '" + script + "' '" + disk.string() + "' '" + test::wafer_binary().string() +
                          "' '" + server.url("/big.gguf") + "' '" + (dir / "left").string() + "' 2>'" +
                          (dir / "err").string() + "' </dev/null >/dev/null";
  const int raw = std::system(cmd.c_str());
  const int status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  const std::string err = test::read_file(dir / "err");
  INFO(err);
  REQUIRE(status != 99);
  CHECK(status == 1);
  CHECK(err.find("No space left on device") != std::string::npos);
  CHECK(err.find("run again to resume") == std::string::npos);  // nothing to resume from
  CHECK(test::read_file(dir / "left").empty());                   // no big.gguf.part on the full disk
}
