// A child process with pipes for `wafer bench`: the completion server under test. Its
// stdin and stdout carry the protocol; stderr goes to a temporary file whose tail is shown
// when the server fails. Reads never block longer than the caller's deadline.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/result.h"
#include "server/platform/platform.h"

namespace wafer::bench {

class ChildProcess {
 public:
  ChildProcess() = default;
  ~ChildProcess();  // kills the child if it still runs, removes the stderr file
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Starts argv (argv[0] looked up on PATH when it has no directory).
  Status start(const std::vector<std::string>& argv);
  Status write(std::string_view bytes);
  void close_stdin();
  // Appends what the child wrote to stdout, waiting at most until deadline for the first
  // bytes. Returns false at end of stream.
  bool read(std::chrono::steady_clock::time_point deadline, std::string& out);
  // Waits up to timeout_ms for the child to exit, then kills it. Returns its exit status
  // (128+signal when killed by one).
  int wait(int timeout_ms);
  // The last bytes the child wrote to stderr (for error messages).
  std::string stderr_tail(size_t max_bytes = 2000) const;

 private:
  os::Child child_;
  std::filesystem::path err_path_;
};

}  // namespace wafer::bench
