// The process-level operating-system services of the daemon and the CLI, behind one
// OS-neutral interface: posix.cpp (Linux and macOS) with linux.cpp or macos.cpp, and
// windows.cpp (CMake compiles only the current OS's). The engine's own services (memory, threads, CPUs) are in
// engine/runtime/platform.h; these concern the process: its executable, its streams, its
// memory use, the user's folders, and child processes with pipes (`wafer bench`, the tests).
#pragma once

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wafer::os {

// Puts stdin and stdout in binary mode (Windows: no CRLF translation under LSP framing).
void binary_stdio();
// UTF-8 command-line arguments (Windows: from the wide command line; elsewhere argv as is).
std::vector<std::string> utf8_arguments(int argc, char** argv);
// Opens a file with the C library's `mode` ("rb", "a", ...); nullptr with errno set when it
// cannot. Build the path with path_from_utf8 (engine/base/path_utf8.h): on Windows a narrow
// fopen would take the name in the ANSI code page.
std::FILE* open_file(const std::filesystem::path& path, const char* mode);
// Whether the file system ignores the case of file names (Windows; macOS's default
// volumes), so that "A.py" and "a.py" are one file: documents and the workspace index then
// key files by a case-folded name (server/document/document_key.h).
bool file_names_ignore_case();
// Writes to a pipe nobody reads fail with an error instead of ending the process (SIGPIPE).
void ignore_broken_pipe();
// Whether the stream (2: stderr) is a terminal.
bool is_terminal(int fd);
// The running executable's path; empty when unknown.
std::filesystem::path executable_path();
// The process's resident memory in KiB; -1 where unknown.
long resident_kib();
// Lowers the calling thread's scheduling priority (background work: the workspace index).
void lower_thread_priority();
// The user's home folder; empty when unknown.
std::string home_dir();
// The folder for the user's cached downloads: $XDG_CACHE_HOME or ~/.cache on Linux,
// ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows; an error message in `error` when none is set.
std::optional<std::filesystem::path> user_cache_dir(std::string& error);
// Writes text to the file (created or truncated) so that only its owner may read or write
// it: POSIX mode 0600, set when the file is created and again if it existed. Windows: the
// file gets the permissions of its folder, so callers put it in the user's profile
// (user_cache_dir()). False with the reason in `error`.
bool write_private_file(const std::filesystem::path& path, std::string_view text, std::string& error);
// Whether users other than the owner may read or write the file (POSIX: any group or other
// permission bit). Windows: false (its access lists are not examined). False with the
// reason in `error` when the file cannot be examined.
bool others_may_access(const std::filesystem::path& path, bool& result, std::string& error);
// This process's id.
long process_id();
// The exit code in the raw status the C library's command runner returns; -1 when the
// command did not exit normally (the tests run `wafer` that way).
int command_exit_code(int raw);
// Sets (value non-null) or removes an environment variable of this process.
void set_env(const char* name, const char* value);

// A child process whose stdin and stdout are pipes to us and whose stderr goes to a file.
class Child {
 public:
  Child() = default;
  ~Child();  // kills the child if it still runs
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // Starts argv (argv[0] looked up on PATH when it has no directory); false with the
  // reason in `error`.
  bool start(const std::vector<std::string>& argv, const std::filesystem::path& stderr_file, std::string& error);
  // Writes all bytes; false when the child no longer reads.
  bool write(std::string_view bytes);
  void close_stdin();
  void close_stdout();
  // Appends what is available on the child's stdout, waiting up to timeout_ms for the first
  // bytes. 1: read some, 0: timed out, -1: end of stream.
  int read(int timeout_ms, std::string& out);
  // Waits up to timeout_ms for the child to exit (then kills it, and returns -1). The exit
  // status, 128+signal when a signal ended it.
  int wait(int timeout_ms);
  // Ends the child now.
  void kill();
  bool running() const { return started_ && !exited_; }
  long id() const { return id_; }

 private:
  bool started_ = false, exited_ = false;
  int status_ = -1;
  long id_ = -1;
  [[maybe_unused]] intptr_t process_ = -1;  // the OS's handle where it has one (Windows)
  intptr_t in_ = -1, out_ = -1;
};

}  // namespace wafer::os
