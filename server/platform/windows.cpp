// Windows.
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
// After windows.h:
#include <fcntl.h>
#include <io.h>
#include <psapi.h>
#include <shellapi.h>

#include <cstdio>
#include <cstdlib>

#include "server/platform/platform.h"

namespace wafer::os {
namespace {

std::string utf8(const wchar_t* w) {
  if (!w || !*w) return "";
  const int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, nullptr, 0, nullptr, nullptr);
  std::string s(static_cast<size_t>(n > 0 ? n - 1 : 0), '\0');
  if (n > 1) WideCharToMultiByte(CP_UTF8, 0, w, -1, s.data(), n, nullptr, nullptr);
  return s;
}

std::wstring wide(std::string_view s) {
  if (s.empty()) return L"";
  const int n = MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), nullptr, 0);
  std::wstring w(static_cast<size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), w.data(), n);
  return w;
}

std::string env(const wchar_t* name) { return utf8(_wgetenv(name)); }

// One argument quoted for CommandLineToArgvW's rules: backslashes are literal except
// before a quote, where they escape.
void append_quoted(std::wstring& line, const std::wstring& arg) {
  if (!arg.empty() && arg.find_first_of(L" \t\n\v\"") == std::wstring::npos) {
    line += arg;
    return;
  }
  line += L'"';
  size_t backslashes = 0;
  for (wchar_t c : arg) {
    if (c == L'\\') {
      ++backslashes;
      continue;
    }
    if (c == L'"') line.append(backslashes * 2 + 1, L'\\');
    else line.append(backslashes, L'\\');
    backslashes = 0;
    line += c;
  }
  line.append(backslashes * 2, L'\\');
  line += L'"';
}

HANDLE as_handle(intptr_t h) { return reinterpret_cast<HANDLE>(h); }

}  // namespace

void binary_stdio() {
  _setmode(_fileno(stdin), _O_BINARY);
  _setmode(_fileno(stdout), _O_BINARY);
}

std::vector<std::string> utf8_arguments(int argc, char** argv) {
  int n = 0;
  wchar_t** w = CommandLineToArgvW(GetCommandLineW(), &n);
  if (!w) return {argv, argv + argc};
  std::vector<std::string> args;
  for (int i = 0; i < n; ++i) args.push_back(utf8(w[i]));
  LocalFree(w);
  return args;
}

std::FILE* open_file(const std::filesystem::path& path, const char* mode) {
  return _wfopen(path.c_str(), wide(mode).c_str());
}

bool file_names_ignore_case() { return true; }

// A write to a closed pipe is an error (ERROR_NO_DATA), never a signal.
void ignore_broken_pipe() {}

bool is_terminal(int fd) { return _isatty(fd) != 0; }

std::filesystem::path executable_path() {
  std::wstring buf(MAX_PATH, L'\0');
  for (;;) {
    const DWORD n = GetModuleFileNameW(nullptr, buf.data(), static_cast<DWORD>(buf.size()));
    if (n == 0) return {};
    if (n < buf.size()) return std::filesystem::path(buf.substr(0, n));
    buf.resize(buf.size() * 2);
  }
}

long resident_kib() {
  PROCESS_MEMORY_COUNTERS pmc{};
  if (!GetProcessMemoryInfo(GetCurrentProcess(), &pmc, sizeof pmc)) return -1;
  return static_cast<long>(pmc.WorkingSetSize / 1024);
}

void lower_thread_priority() { SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_BELOW_NORMAL); }

std::string home_dir() {
  std::string home = env(L"USERPROFILE");
  return home.empty() ? env(L"HOME") : home;
}

std::optional<std::filesystem::path> user_cache_dir(std::string& error) {
  const wchar_t* local = _wgetenv(L"LOCALAPPDATA");
  if (local && *local) return std::filesystem::path(local);
  error = "no cache directory: set LOCALAPPDATA, or pass --cache-dir";
  return std::nullopt;
}

bool write_private_file(const std::filesystem::path& path, std::string_view text, std::string& error) {
  std::FILE* f = _wfopen(path.c_str(), L"wb");
  if (!f) return error = "cannot create the file", false;
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) return error = "cannot write the file", false;
  return true;
}

bool others_may_access(const std::filesystem::path&, bool& result, std::string&) {
  result = false;
  return true;
}

long process_id() { return static_cast<long>(GetCurrentProcessId()); }

int command_exit_code(int raw) { return raw; }

void set_env(const char* name, const char* value) {
  _wputenv_s(wide(name).c_str(), value ? wide(value).c_str() : L"");
}

Child::~Child() {
  if (running()) kill();
  close_stdin();
  close_stdout();
  if (process_ != -1) CloseHandle(as_handle(process_));
}

bool Child::start(const std::vector<std::string>& argv, const std::filesystem::path& stderr_file, std::string& error) {
  if (argv.empty()) {
    error = "no command";
    return false;
  }
  SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  HANDLE err = CreateFileW(stderr_file.c_str(), GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           &inherit, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (err == INVALID_HANDLE_VALUE) {
    error = "cannot create " + utf8(stderr_file.c_str());
    return false;
  }
  HANDLE child_in = nullptr, our_in = nullptr, our_out = nullptr, child_out = nullptr;
  if (!CreatePipe(&child_in, &our_in, &inherit, 0) || !CreatePipe(&our_out, &child_out, &inherit, 0)) {
    error = "CreatePipe failed";
    CloseHandle(err);
    return false;
  }
  // Our ends stay here.
  SetHandleInformation(our_in, HANDLE_FLAG_INHERIT, 0);
  SetHandleInformation(our_out, HANDLE_FLAG_INHERIT, 0);
  std::wstring line;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (i) line += L' ';
    append_quoted(line, wide(argv[i]));
  }
  STARTUPINFOW si{};
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = child_in;
  si.hStdOutput = child_out;
  si.hStdError = err;
  PROCESS_INFORMATION pi{};
  const BOOL ok = CreateProcessW(nullptr, line.data(), nullptr, nullptr, TRUE, CREATE_NO_WINDOW, nullptr, nullptr, &si, &pi);
  CloseHandle(child_in);
  CloseHandle(child_out);
  CloseHandle(err);
  if (!ok) {
    error = "cannot run '" + argv[0] + "' (error " + std::to_string(GetLastError()) + ")";
    CloseHandle(our_in);
    CloseHandle(our_out);
    return false;
  }
  CloseHandle(pi.hThread);
  process_ = reinterpret_cast<intptr_t>(pi.hProcess);
  id_ = static_cast<long>(pi.dwProcessId);
  in_ = reinterpret_cast<intptr_t>(our_in);
  out_ = reinterpret_cast<intptr_t>(our_out);
  started_ = true;
  return true;
}

bool Child::write(std::string_view bytes) {
  if (in_ == -1) return false;
  while (!bytes.empty()) {
    DWORD n = 0;
    const DWORD chunk = static_cast<DWORD>(std::min<size_t>(bytes.size(), 1u << 20));
    if (!WriteFile(as_handle(in_), bytes.data(), chunk, &n, nullptr) || n == 0) return false;
    bytes.remove_prefix(n);
  }
  return true;
}

void Child::close_stdin() {
  if (in_ != -1) CloseHandle(as_handle(in_));
  in_ = -1;
}

void Child::close_stdout() {
  if (out_ != -1) CloseHandle(as_handle(out_));
  out_ = -1;
}

int Child::read(int timeout_ms, std::string& out) {
  if (out_ == -1) return -1;
  // Anonymous pipes have no timed read: look at what is waiting, sleep briefly, repeat.
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    DWORD avail = 0;
    if (!PeekNamedPipe(as_handle(out_), nullptr, 0, nullptr, &avail, nullptr)) return -1;  // broken: the end
    if (avail > 0) {
      std::string buf(avail, '\0');
      DWORD n = 0;
      if (!ReadFile(as_handle(out_), buf.data(), avail, &n, nullptr)) return -1;
      out.append(buf.data(), n);
      return 1;
    }
    if (std::chrono::steady_clock::now() >= until) return 0;
    Sleep(1);
  }
}

int Child::wait(int timeout_ms) {
  if (!started_) return -1;
  if (exited_) return status_;
  if (WaitForSingleObject(as_handle(process_), static_cast<DWORD>(timeout_ms)) != WAIT_OBJECT_0) {
    kill();
    return -1;
  }
  DWORD code = 0;
  GetExitCodeProcess(as_handle(process_), &code);
  exited_ = true;
  status_ = static_cast<int>(code);
  return status_;
}

void Child::kill() {
  if (!running()) return;
  TerminateProcess(as_handle(process_), 128 + 9);
  WaitForSingleObject(as_handle(process_), INFINITE);
  exited_ = true;
  status_ = 128 + 9;
}

}  // namespace wafer::os
