// What Linux and macOS share: terminals, the environment, exit codes, child processes with
// pipes. What differs is in linux.cpp and macos.cpp.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "server/platform/platform.h"
#include "server/platform/posix_pipe.h"

namespace wafer::os {

void binary_stdio() {}

std::vector<std::string> utf8_arguments(int argc, char** argv) { return {argv, argv + argc}; }

std::FILE* open_file(const std::filesystem::path& path, const char* mode) { return std::fopen(path.c_str(), mode); }

void ignore_broken_pipe() { signal(SIGPIPE, SIG_IGN); }

bool is_terminal(int fd) { return isatty(fd) != 0; }

std::string home_dir() {
  const char* home = std::getenv("HOME");
  return home ? home : "";
}

bool write_private_file(const std::filesystem::path& path, std::string_view text, std::string& error) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return error = std::strerror(errno), false;
  // An existing file keeps its mode through O_CREAT: narrow it before writing the secret.
  bool ok = ::fchmod(fd, 0600) == 0;
  for (size_t done = 0; ok && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  if (!ok) error = std::strerror(errno);
  ::close(fd);
  return ok;
}

bool others_may_access(const std::filesystem::path& path, bool& result, std::string& error) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return error = std::strerror(errno), false;
  result = (st.st_mode & (S_IRWXG | S_IRWXO)) != 0;
  return true;
}

long process_id() { return static_cast<long>(getpid()); }

int command_exit_code(int raw) { return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1; }

void set_env(const char* name, const char* value) {
  if (value) setenv(name, value, 1);
  else unsetenv(name);
}

Child::~Child() {
  if (running()) kill();
  close_stdin();
  close_stdout();
}

bool Child::start(const std::vector<std::string>& argv, const std::filesystem::path& stderr_file, std::string& error) {
  if (argv.empty()) {
    error = "no command";
    return false;
  }
  const int err = ::open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (err < 0) {
    error = "cannot create " + stderr_file.string() + ": " + std::strerror(errno);
    return false;
  }
  int in_pipe[2], out_pipe[2];
  if (pipe_cloexec(in_pipe) != 0 || pipe_cloexec(out_pipe) != 0) {
    error = std::string("pipe failed: ") + std::strerror(errno);
    ::close(err);
    return false;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // A child that goes away must not kill us with SIGPIPE on the next write.
  signal(SIGPIPE, SIG_IGN);
  const pid_t pid = fork();
  if (pid < 0) {
    error = std::string("fork failed: ") + std::strerror(errno);
    return false;
  }
  if (pid == 0) {
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
  fcntl(static_cast<int>(out_), F_SETFL, fcntl(static_cast<int>(out_), F_GETFL) | O_NONBLOCK);
  id_ = pid;
  started_ = true;
  return true;
}

bool Child::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(static_cast<int>(in_), bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

void Child::close_stdin() {
  if (in_ >= 0) ::close(static_cast<int>(in_));
  in_ = -1;
}

void Child::close_stdout() {
  if (out_ >= 0) ::close(static_cast<int>(out_));
  out_ = -1;
}

int Child::read(int timeout_ms, std::string& out) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  const int fd = static_cast<int>(out_);
  for (;;) {
    char buf[65536];
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
      return 1;
    }
    if (n == 0) return -1;
    if (errno != EAGAIN && errno != EINTR) return -1;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return 0;
    pollfd p{fd, POLLIN, 0};
    poll(&p, 1, static_cast<int>(left.count()));
  }
}

int Child::wait(int timeout_ms) {
  if (!started_) return -1;
  if (exited_) return status_;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int st = 0;
  for (;;) {
    const pid_t r = waitpid(static_cast<pid_t>(id_), &st, WNOHANG);
    if (r == static_cast<pid_t>(id_)) break;
    if (std::chrono::steady_clock::now() >= until) {
      kill();
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  exited_ = true;
  status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return status_;
}

void Child::kill() {
  if (!running()) return;
  ::kill(static_cast<pid_t>(id_), SIGKILL);
  int st = 0;
  waitpid(static_cast<pid_t>(id_), &st, 0);
  exited_ = true;
  status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

}  // namespace wafer::os
