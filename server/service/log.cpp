#include "server/service/log.h"

#include <chrono>
#include <ctime>

namespace wafer {

Logger::Logger(const std::string& path) {
  if (!path.empty()) {
    file_ = std::fopen(path.c_str(), "a");
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
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
  std::fprintf(file_, "%s.%03d wafer %s: %s\n", stamp, static_cast<int>(ms), names[static_cast<int>(level)],
               message.c_str());
  std::fflush(file_);
  if (forward_ && level >= LogLevel::kInfo) forward_(level, message);
}

}  // namespace wafer
