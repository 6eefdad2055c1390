#include "server/benchtool/bench_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace wafer::bench {

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !exited_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (in_ >= 0) ::close(in_);
  if (out_ >= 0) ::close(out_);
  if (!err_path_.empty()) std::remove(err_path_.c_str());
}

namespace {

// A pipe whose ends close on exec (pipe2 is Linux and BSD; macOS has only pipe + fcntl).
int pipe_cloexec(int fds[2]) {
#if defined(__linux__)
  return pipe2(fds, O_CLOEXEC);
#else
  if (pipe(fds) != 0) return -1;
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  return 0;
#endif
}

}  // namespace

Status ChildProcess::start(const std::vector<std::string>& argv) {
  if (argv.empty()) return make_error("no server command");
  char tmpl[] = "/tmp/wafer-bench-stderr-XXXXXX";
  int err = mkstemp(tmpl);
  if (err < 0) return make_error(std::string("cannot create a temporary file: ") + std::strerror(errno));
  err_path_ = tmpl;
  int in_pipe[2], out_pipe[2];
  if (pipe_cloexec(in_pipe) != 0) return make_error("pipe failed");
  if (pipe_cloexec(out_pipe) != 0) return make_error("pipe failed");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // A server that goes away must not kill us with SIGPIPE on the next write.
  signal(SIGPIPE, SIG_IGN);
  pid_ = fork();
  if (pid_ < 0) return make_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid_ == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err, 2);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run '%s': %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  ::close(err);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  in_ = in_pipe[1];
  out_ = out_pipe[0];
  fcntl(out_, F_SETFL, fcntl(out_, F_GETFL) | O_NONBLOCK);
  return {};
}

Status ChildProcess::write(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(in_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 && errno == EPIPE) {
      // The server closed its input, almost always by exiting: say so, with its status (as
      // a read would have, had the exit been noticed first).
      const int code = wait(1000);
      return make_error("the server exited (status " + std::to_string(code) + ")" +
                        (stderr_tail().empty() ? "" : ": " + stderr_tail()));
    }
    if (n <= 0) return make_error("the server closed its input (" + std::string(std::strerror(errno)) + ")");
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

void ChildProcess::close_stdin() {
  if (in_ >= 0) ::close(in_);
  in_ = -1;
}

bool ChildProcess::read(std::chrono::steady_clock::time_point deadline, std::string& out) {
  for (;;) {
    char buf[65536];
    ssize_t n = ::read(out_, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      while ((n = ::read(out_, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
      return n != 0;
    }
    if (n == 0) return false;
    if (errno != EAGAIN && errno != EINTR) return false;
    auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) return true;
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
    timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
    pollfd p{out_, POLLIN, 0};
    ppoll(&p, 1, &ts, nullptr);
  }
}

int ChildProcess::wait(int timeout_ms) {
  if (pid_ <= 0) return -1;
  if (exited_) return status_;
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int st = 0;
  for (;;) {
    pid_t r = waitpid(pid_, &st, WNOHANG);
    if (r == pid_) break;
    if (std::chrono::steady_clock::now() >= until) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &st, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  exited_ = true;
  status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return status_;
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
