// `wafer pull NAME|URL [--sha256 HEX] [--cache-dir DIR] [--with-draft]`: downloads a GGUF
// model into the cache directory and prints its path on stdout (so `--model "$(wafer pull
// NAME)"` works); with --with-draft, then the catalogue model that drafts for NAME, its
// path on a second line. `wafer pull --list` prints the catalogue of short names.
//
// The bytes land in FILE.part (resumed on the next run if the transfer breaks), are checked
// (size and SHA-256 when known, and a full GGUF header parse) and only then renamed to FILE,
// so the cache never holds a half-written or corrupt model under its final name.

#include <chrono>
#include <cstdio>

#include "engine/base/path_utf8.h"
#include "engine/gguf/gguf.h"
#include "server/cli/commands.h"
#include "server/pull/http_download.h"
#include "server/pull/model_catalog.h"
#include "server/pull/sha256.h"
#include "server/platform/platform.h"

namespace wafer {
namespace {

namespace fs = std::filesystem;

double mib(uint64_t bytes) { return double(bytes) / (1024.0 * 1024.0); }

void print_catalog(const Catalog& catalog) {
  std::printf("%-20s %10s  %-32s %-20s %s\n", "NAME", "SIZE", "LICENSE", "DRAFT", "NOTE");
  for (const CatalogModel& m : catalog.models)
    std::printf("%-20s %7.0f MiB  %-32s %-20s %s\n", m.name.c_str(), mib(m.size), m.license.c_str(),
                m.draft.empty() ? "-" : m.draft.c_str(), m.note.c_str());
}

// Progress on stderr: redrawn in place on a terminal, else one line per 10 % (or 64 MiB).
class ProgressLine {
 public:
  explicit ProgressLine(std::string file) : file_(std::move(file)), tty_(os::is_terminal(2)) {}

  void update(uint64_t have, uint64_t total) {
    if (have == 0) return;  // nothing to show before the first bytes arrive
    const auto now = std::chrono::steady_clock::now();
    if (!started_) {
      started_ = true;
      t0_ = now;
      have0_ = have;
    }
    const uint64_t step = total ? total / 10 : 64ull << 20;
    const bool due = tty_ ? now - last_ > std::chrono::milliseconds(200) || have == total
                          : step && have / step != last_step_;
    if (!due) return;
    last_ = now;
    last_step_ = step ? have / step : 0;
    const double secs = std::chrono::duration<double>(now - t0_).count();
    const double rate = secs > 0 ? mib(have - have0_) / secs : 0;
    char line[160];
    if (total)
      std::snprintf(line, sizeof line, "%s  %.1f / %.1f MiB  %3d%%  %.1f MiB/s", file_.c_str(), mib(have),
                    mib(total), int(100 * have / total), rate);
    else
      std::snprintf(line, sizeof line, "%s  %.1f MiB  %.1f MiB/s", file_.c_str(), mib(have), rate);
    std::fprintf(stderr, tty_ ? "\r%s\033[K" : "%s\n", line);
    drawn_ = true;
  }

  void finish() {
    if (tty_ && drawn_) std::fputc('\n', stderr);
    drawn_ = false;
  }

 private:
  std::string file_;
  bool tty_;
  bool started_ = false, drawn_ = false;
  std::chrono::steady_clock::time_point t0_, last_;
  uint64_t have0_ = 0, last_step_ = ~0ull;
};

// Size (when known), GGUF structure and SHA-256 (when known) of a downloaded file.
Status verify(const fs::path& path, const PullTarget& t) {
  std::error_code ec;
  const uint64_t size = fs::file_size(path, ec);
  if (ec) return make_error(utf8_from_path(path) + ": " + ec.message());
  if (t.size && size != t.size)
    return make_error("size is " + std::to_string(size) + " bytes, expected " + std::to_string(t.size));
  if (auto gguf = GgufFile::open(path); !gguf) return make_error("not a usable GGUF model: " + gguf.error().message);
  if (!t.sha256.empty()) {
    auto digest = sha256_file(path);
    if (!digest) return digest.error();
    if (*digest != t.sha256) return make_error("sha256 mismatch: got " + *digest + ", expected " + t.sha256);
  }
  return {};
}

int fail(const std::string& message) {
  std::fprintf(stderr, "wafer pull: %s\n", message.c_str());
  return kExitFailure;
}

// Downloads `target` into `dir` (or finds it there), verified, and prints its path.
int pull_one(const PullTarget& target, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail(utf8_from_path(dir) + ": " + ec.message());

  const fs::path final_path = dir / target.file;
  if (fs::exists(final_path)) {
    if (Status s = verify(final_path, target); !s)
      return fail(utf8_from_path(final_path) + " exists but " + s.error().message + "; delete it and pull again");
    std::fprintf(stderr, "wafer pull: %s is already downloaded\n", target.file.c_str());
    std::printf("%s\n", utf8_from_path(final_path).c_str());
    return kExitOk;
  }

  const fs::path part = path_from_utf8(utf8_from_path(final_path) + ".part");
  std::fprintf(stderr, "wafer pull: %s -> %s\n", target.url.c_str(), utf8_from_path(part).c_str());
  ProgressLine line(target.file);
  Status got = http_download(target.url, part, [&](uint64_t have, uint64_t total) {
    line.update(have, total ? total : target.size);
  });
  line.finish();
  if (!got) return fail(got.error().message + (fs::exists(part) ? " (run again to resume)" : ""));

  if (Status s = verify(part, target); !s) {
    fs::remove(part, ec);  // a complete but wrong file cannot be repaired by resuming
    return fail(target.file + ": " + s.error().message + "; the download was deleted");
  }
  fs::rename(part, final_path, ec);
  if (ec) return fail(utf8_from_path(final_path) + ": " + ec.message());
  std::fprintf(stderr, "wafer pull: saved %s%s\n", utf8_from_path(final_path).c_str(),
               target.sha256.empty() ? " (no checksum known: only the GGUF structure was checked)" : " (sha256 verified)");
  std::printf("%s\n", utf8_from_path(final_path).c_str());
  return kExitOk;
}

}  // namespace

int run_pull(const Options& o) {
  // A URL needs no catalogue; a name or --list does (a bad $WAFER_CATALOG is reported then).
  const bool url = o.positional.size() == 1 &&
                   (o.positional[0].starts_with("http://") || o.positional[0].starts_with("https://"));
  Result<Catalog> catalog = url ? Result<Catalog>(Catalog{}) : model_catalog();
  if (!catalog) return fail(catalog.error().message);
  if (o.list) {
    print_catalog(*catalog);
    return kExitOk;
  }
  if (o.positional.size() != 1) {
    std::fprintf(stderr, "wafer pull: expected one NAME or URL (try 'wafer pull --list' or 'wafer pull --help')\n");
    return kExitUsage;
  }
  auto target = resolve_pull_target(o.positional[0], o.sha256, *catalog);
  if (!target) {
    std::fprintf(stderr, "wafer pull: %s\n", target.error().message.c_str());
    return kExitUsage;
  }
  auto dir = model_cache_dir(o.cache_dir);
  if (!dir) return fail(dir.error().message);
  const CatalogModel* model = catalog->find(o.positional[0]);
  const CatalogModel* draft = catalog->draft_of(o.positional[0]);
  if (o.with_draft && !draft) {
    std::fprintf(stderr, "wafer pull: --with-draft: the catalogue names no model that drafts for '%s'\n",
                 o.positional[0].c_str());
    return kExitUsage;
  }
  if (int status = pull_one(*target, *dir); status != kExitOk) return status;
  if (draft && o.with_draft) {
    auto draft_target = resolve_pull_target(draft->name, "", *catalog);
    if (!draft_target) return fail(draft_target.error().message);
    return pull_one(*draft_target, *dir);
  }
  if (draft)
    std::fprintf(stderr,
                 "wafer pull: %s drafts for this model (faster greedy suggestions, the same text): wafer pull %s "
                 "--with-draft, and wafer uses it with this model by itself\n",
                 draft->name.c_str(), model->name.c_str());
  return kExitOk;
}

}  // namespace wafer
