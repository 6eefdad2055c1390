// Helpers shared by wafer's tests: temporary directories, the shared llama.cpp reference
// data (skipping cleanly when it is absent) and the path of the built `wafer` binary.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <new>
#include <filesystem>
#include <optional>
#include <string>

namespace wafer::test {

// n bytes (rounded up, plus 64 spare) aligned to 64, as the kernels' buffers are; freed on
// destruction.
struct AlignedBytes {
  explicit AlignedBytes(size_t n)
      : p(static_cast<uint8_t*>(::operator new((n + 63) / 64 * 64 + 64, std::align_val_t{64}))) {}
  ~AlignedBytes() { ::operator delete(p, std::align_val_t{64}); }
  AlignedBytes(const AlignedBytes&) = delete;
  AlignedBytes& operator=(const AlignedBytes&) = delete;
  uint8_t* p;
};

// Exit code that CTest reports as "skipped" (SKIP_RETURN_CODE on every test).
inline constexpr int kSkipExitCode = 77;

// A fresh directory under the system temp dir, removed (with its contents) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// The conformance test data (the build tree's view of tests/data and, when present, the
// larger optional references of ../shared/testdata; see cmake/testdata.cmake).
std::filesystem::path testdata_dir();

// Whether the test data holds `relative` (for tests that use the optional files they find).
bool has_testdata(const std::string& relative);

// The path of a file of the test data. A file that tests/data does not hold, when no shared
// folder is there either, prints a SKIPPED message naming it and ends the test process with
// kSkipExitCode. A file missing while the shared folder is present is a real failure (the
// test fails on REQUIRE).
std::filesystem::path require_testdata(const std::string& relative);

// Prints "SKIPPED: <why>" and ends the test process with kSkipExitCode (each Catch2 test
// case runs in its own process under ctest), e.g. for kernels this CPU cannot run.
[[noreturn]] void skip_test(const std::string& why);

// Path of the built `wafer` executable (for integration tests).
std::filesystem::path wafer_binary();

// Runs `wafer ARGS` (ARGS as a shell fragment, quoted by the caller) with stdin from
// /dev/null; returns its exit status (-1 if it did not exit normally) and captured output.
struct WaferRun {
  int status;
  std::string out, err;
};
WaferRun run_wafer(const std::string& args);

// Sets an environment variable (nullptr: unsets it) for the scope, restoring the old value
// (or its absence) on destruction.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// Reads a whole file; throws std::runtime_error when it cannot.
std::string read_file(const std::filesystem::path& path);
// Writes a file, creating its folders as needed; throws std::runtime_error when it cannot.
void write_file(const std::filesystem::path& path, const std::string& contents);

}  // namespace wafer::test
