// For posix.cpp's child processes: a pipe whose ends close on exec (linux.cpp, macos.cpp).
#pragma once

namespace wafer::os {

// 0, or -1 with errno set.
int pipe_cloexec(int fds[2]);

}  // namespace wafer::os
