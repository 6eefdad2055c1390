#include "tests/support/testing.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "server/platform/platform.h"

namespace wafer::test {

namespace fs = std::filesystem;

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  fs::path base = fs::temp_directory_path();
  for (int attempt = 0;; ++attempt) {
    fs::path p = base / ("wafer-test-" + std::to_string(os::process_id()) + "-" +
                         std::to_string(counter++) + "-" + std::to_string(attempt));
    std::error_code ec;
    if (fs::create_directory(p, ec)) {
      path_ = p;
      return;
    }
    if (attempt > 100) throw std::runtime_error("cannot create a temp dir under " + base.string());
  }
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

fs::path testdata_dir() { return fs::path(WAFER_TESTDATA_DIR); }

bool has_testdata(const std::string& relative) { return fs::exists(testdata_dir() / relative); }

fs::path require_testdata(const std::string& relative) {
  fs::path p = testdata_dir() / relative;
  if (fs::exists(p) || WAFER_SHARED_TESTDATA_PRESENT) return p;  // (missing from a present folder: a failure)
  std::printf(
      "SKIPPED: optional reference data %s is not in the repository's tests/data\n"
      "         (the larger llama.cpp references live in ../shared/testdata beside the checkout, "
      "or WAFER_SHARED_TESTDATA_DIR; see tests/data/README.md)\n",
      relative.c_str());
  std::fflush(stdout);
  std::_Exit(kSkipExitCode);
}

void skip_test(const std::string& why) {
  std::printf("SKIPPED: %s\n", why.c_str());
  std::fflush(stdout);
  std::_Exit(kSkipExitCode);
}

fs::path wafer_binary() { return fs::path(WAFER_BINARY); }

WaferRun run_wafer(const std::string& args) {
  TempDir dir;
  const std::string cmd = "'" + wafer_binary().string() + "' " + args + " >'" + (dir / "out").string() + "' 2>'" +
                          (dir / "err").string() + "' </dev/null";
  const int raw = std::system(cmd.c_str());
  return {os::command_exit_code(raw), read_file(dir / "out"), read_file(dir / "err")};
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const fs::path& path, const std::string& contents) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);  // folders as needed
  std::ofstream out(path, std::ios::binary);
  out << contents;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

namespace {

void set_env(const char* name, const char* value) {
#ifdef _WIN32
  _putenv_s(name, value ? value : "");  // "" removes the variable
#else
  if (value) setenv(name, value, 1);
  else unsetenv(name);
#endif
}

}  // namespace

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  if (const char* old = std::getenv(name)) old_ = old;
  set_env(name, value);
}

ScopedEnv::~ScopedEnv() { set_env(name_, old_ ? old_->c_str() : nullptr); }

}  // namespace wafer::test
