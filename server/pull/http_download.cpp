#include "server/pull/http_download.h"

#include <curl/curl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "engine/base/path_utf8.h"
#include "engine/base/version.h"
#include "server/platform/platform.h"

namespace wafer {
namespace {

struct Transfer {
  FILE* out = nullptr;
  CURL* curl = nullptr;
  uint64_t offset = 0;           // bytes already in the file when this attempt started
  uint64_t written = 0;          // bytes this attempt appended
  long status = 0;               // HTTP status of the final response (after redirects)
  int write_errno = 0;           // the error of a failed write (0: none)
  const DownloadProgress* progress = nullptr;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  if (t->status == 0) curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &t->status);
  if (t->status >= 300) return size * n;  // an error page: read it, keep none of it
  if (std::fwrite(data, size, n, t->out) != n) {
    t->write_errno = errno ? errno : EIO;  // curl's clean-up may change errno before it is reported
    return 0;
  }
  t->written += size * n;
  return size * n;
}

int on_progress(void* user, curl_off_t dltotal, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (*t->progress && t->status < 300) (*t->progress)(t->offset + t->written, dltotal > 0 ? t->offset + dltotal : 0);
  return 0;
}

bool retryable(CURLcode rc) {
  switch (rc) {
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

uint64_t size_of(const std::filesystem::path& p) {
  std::error_code ec;
  auto n = std::filesystem::file_size(p, ec);
  return ec ? 0 : n;
}

// Whether a write error means the disk (or the user's quota or file size limit) is full: a
// partial file then only holds space the user needs back, and resuming fails the same way.
bool out_of_space(int err) {
#ifdef EDQUOT  // not in every C library's errno.h
  if (err == EDQUOT) return true;
#endif
  return err == ENOSPC || err == EFBIG;
}

// One transfer, appending to `part` from its current size. `retry` is set when another
// attempt may succeed; `restart` when the .part file must be discarded first; `discard`
// when it must be removed (the disk is full).
Status attempt(const std::string& url, const std::filesystem::path& part, const DownloadProgress& progress,
               const DownloadOptions& options, bool& retry, bool& restart, bool& discard) {
  retry = restart = discard = false;
  Transfer t;
  t.progress = &progress;
  t.offset = size_of(part);
  t.out = os::open_file(part, t.offset ? "ab" : "wb");
  if (!t.out) return make_error(utf8_from_path(part) + ": " + std::strerror(errno));
  t.curl = curl_easy_init();
  if (!t.curl) {
    std::fclose(t.out);
    return make_error("cannot initialise libcurl");
  }
  char curl_error[CURL_ERROR_SIZE] = "";
  const std::string agent = "wafer/" + std::string(version());
  curl_easy_setopt(t.curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(t.curl, CURLOPT_USERAGENT, agent.c_str());
  curl_easy_setopt(t.curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(t.curl, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(t.curl, CURLOPT_ERRORBUFFER, curl_error);
  curl_easy_setopt(t.curl, CURLOPT_CONNECTTIMEOUT, 30L);
  curl_easy_setopt(t.curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(t.curl, CURLOPT_LOW_SPEED_TIME, options.stall_timeout_s);
  curl_easy_setopt(t.curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(t.curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(t.curl, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(t.curl, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(t.curl, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(t.curl, CURLOPT_NOPROGRESS, 0L);
  if (t.offset) curl_easy_setopt(t.curl, CURLOPT_RESUME_FROM_LARGE, curl_off_t(t.offset));

  const CURLcode rc = curl_easy_perform(t.curl);
  long status = 0;
  curl_easy_getinfo(t.curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(t.curl);
  // Buffered bytes are written by fclose: a full disk may show only there.
  if (std::fclose(t.out) != 0 && t.write_errno == 0) t.write_errno = errno ? errno : EIO;
  if (t.write_errno) {
    discard = out_of_space(t.write_errno);
    return make_error(utf8_from_path(part) + ": write failed: " + std::strerror(t.write_errno));
  }

  if (t.offset && status == 416) return {};  // nothing past our bytes: the file is complete
  if (rc == CURLE_RANGE_ERROR || (t.offset && status == 200)) {
    restart = retry = true;  // the server ignored the range: start again from byte 0
    return make_error("the server does not support resuming (HTTP Range)");
  }
  if (status >= 400) {
    retry = status >= 500;
    return make_error("HTTP " + std::to_string(status) + " from " + url);
  }
  if (rc != CURLE_OK) {
    retry = retryable(rc);
    std::string why = *curl_error ? curl_error : curl_easy_strerror(rc);
    return make_error(why + " (" + url + ")");
  }
  if (progress) progress(t.offset + t.written, t.offset + t.written);
  return {};
}

}  // namespace

Status http_download(const std::string& url, const std::filesystem::path& part, const DownloadProgress& progress,
                     const DownloadOptions& options) {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  double delay = options.retry_delay_s;
  Status last;
  for (int i = 0; i < std::max(1, options.max_attempts); ++i) {
    bool retry = false, restart = false, discard = false;
    last = attempt(url, part, progress, options, retry, restart, discard);
    if (discard) {
      std::error_code ec;
      std::filesystem::remove(part, ec);
    }
    if (last.ok() || !retry) break;
    if (restart) {
      std::error_code ec;
      std::filesystem::remove(part, ec);
    }
    if (i + 1 < options.max_attempts) {
      std::this_thread::sleep_for(std::chrono::duration<double>(delay));
      delay *= 2;
    }
  }
  if (!last.ok() && size_of(part) == 0) {
    std::error_code ec;
    std::filesystem::remove(part, ec);  // nothing to resume: leave no empty .part behind
  }
  return last;
}

}  // namespace wafer
