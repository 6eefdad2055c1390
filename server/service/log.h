// The daemon's own log: timestamped lines to --log-file (appended) or stderr. Warnings
// and errors are also forwarded to the client as window/logMessage by the LSP server
// (through the forward hook), so a user sees daemon problems in the editor's output.
#pragma once

#include <cstdio>
#include <functional>
#include <string>

namespace wafer {

enum class LogLevel { kDebug, kInfo, kWarning, kError };

class Logger {
 public:
  // path empty: stderr. An unopenable file falls back to stderr (with a note there).
  explicit Logger(const std::string& path = {});
  ~Logger();
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  void log(LogLevel level, const std::string& message);
  void debug(const std::string& m) { log(LogLevel::kDebug, m); }
  void info(const std::string& m) { log(LogLevel::kInfo, m); }
  void warn(const std::string& m) { log(LogLevel::kWarning, m); }
  void error(const std::string& m) { log(LogLevel::kError, m); }

  // Also called for kInfo and above (the LSP server sends window/logMessage).
  void set_forward(std::function<void(LogLevel, const std::string&)> f) { forward_ = std::move(f); }

 private:
  std::FILE* file_ = nullptr;
  bool owns_ = false;
  std::function<void(LogLevel, const std::string&)> forward_;
};

}  // namespace wafer
