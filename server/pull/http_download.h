// Resumable HTTP(S) download of one file with libcurl, for `wafer pull`.
//
// Bytes go to a ".part" file. When it already holds bytes (an earlier run was cut off, or
// this run's transfer broke), the download continues from its size with an HTTP Range
// request; a server that ignores the range makes us start over from byte 0. Broken
// transfers and 5xx answers are retried a few times, each retry resuming; 4xx answers are
// final. A full disk (no space, quota or file size limit) ends the download and removes the
// .part file: it only holds space the user needs back. The caller verifies the finished
// file and renames it into place.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "engine/base/result.h"

namespace wafer {

// Called now and then with bytes present in the .part file so far and the expected total
// (0 when the server did not say).
using DownloadProgress = std::function<void(uint64_t have, uint64_t total)>;

struct DownloadOptions {
  int max_attempts = 4;          // transfers per call (the first and the resuming retries)
  double retry_delay_s = 1.0;    // doubled after each failed attempt
  long stall_timeout_s = 60;     // abort an attempt when under 1 byte/s for this long
};

Status http_download(const std::string& url, const std::filesystem::path& part,
                     const DownloadProgress& progress, const DownloadOptions& options = {});

}  // namespace wafer
