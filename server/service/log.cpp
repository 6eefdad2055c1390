#include "server/service/log.h"

#include <chrono>

#include "engine/base/path_utf8.h"
#include "server/platform/platform.h"

namespace wafer {

Logger::Logger(const std::string& path) {
  if (!path.empty()) {
    file_ = os::open_file(path_from_utf8(path), "a");
    owns_ = file_ != nullptr;
    if (!file_) std::fprintf(stderr, "wafer lsp: cannot open log file '%s'; logging to stderr\n", path.c_str());
  }
  if (!file_) file_ = stderr;
}

Logger::~Logger() {
  if (owns_) std::fclose(file_);
}

void Logger::log(LogLevel level, const std::string& message) {
  static const char* names[] = {"debug", "info", "warning", "error"};
  // UTC time of day, from the clock alone (no gmtime_r: not every C library has it).
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count() % 86400000;
  std::fprintf(file_, "%02d:%02d:%02d.%03d wafer %s: %s\n", static_cast<int>(ms / 3600000),
               static_cast<int>(ms / 60000 % 60), static_cast<int>(ms / 1000 % 60), static_cast<int>(ms % 1000),
               names[static_cast<int>(level)], message.c_str());
  std::fflush(file_);
  if (forward_ && level >= LogLevel::kInfo) forward_(level, message);
}

}  // namespace wafer
