#include "server/benchtool/bench_process.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace wafer::bench {

ChildProcess::~ChildProcess() {
  child_.kill();
  child_.close_stdin();
  child_.close_stdout();
  std::error_code ec;
  if (!err_path_.empty()) std::filesystem::remove(err_path_, ec);
}

Status ChildProcess::start(const std::vector<std::string>& argv) {
  if (argv.empty()) return make_error("no server command");
  static std::atomic<unsigned> counter{0};
  std::error_code ec;
  const auto dir = std::filesystem::temp_directory_path(ec);
  if (ec) return make_error("no temporary folder: " + ec.message());
  const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
  err_path_ = dir / ("wafer-bench-stderr-" + std::to_string(stamp) + "-" + std::to_string(counter++));
  std::string error;
  if (!child_.start(argv, err_path_, error)) return make_error(error);
  return {};
}

Status ChildProcess::write(std::string_view bytes) {
  if (child_.write(bytes)) return {};
  // The server closed its input, almost always by exiting: say so, with its status (as a
  // read would have, had the exit been noticed first).
  const int code = wait(1000);
  return make_error("the server exited (status " + std::to_string(code) + ")" +
                    (stderr_tail().empty() ? "" : ": " + stderr_tail()));
}

void ChildProcess::close_stdin() { child_.close_stdin(); }

bool ChildProcess::read(std::chrono::steady_clock::time_point deadline, std::string& out) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  return child_.read(static_cast<int>(std::max<int64_t>(0, left.count())), out) >= 0;
}

int ChildProcess::wait(int timeout_ms) {
  const int status = child_.wait(timeout_ms);
  return status < 0 && child_.id() > 0 ? 128 + 9 : status;  // killed after the timeout
}

std::string ChildProcess::stderr_tail(size_t max_bytes) const {
  std::ifstream in(err_path_, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  if (s.size() > max_bytes) s = "..." + s.substr(s.size() - max_bytes);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace wafer::bench
