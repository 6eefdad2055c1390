// The HTML report: its structure, and what headless Chromium draws from it (a screenshot
// must show the histogram bars and the points of the latency-over-time plot).
#include "server/benchtool/bench_html.h"

#include <zlib.h>

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "tests/support/testing.h"

using namespace wafer::bench;

namespace {

std::vector<RunReport> two_runs() {
  std::vector<RunReport> runs(2);
  for (size_t k = 0; k < 2; ++k) {
    runs[k].target = k == 0 ? "wafer lsp <fast>" : "other & slow";
    for (int i = 0; i < 60; ++i) {
      RequestRecord r;
      r.id = i + 1;
      r.at_ms = i * 100.0;
      r.first_text_ms = (k + 1) * (10.0 + i % 7);
      r.final_ms = r.first_text_ms + 15 + i % 11;
      r.outcome = i % 10 == 9 ? "cancelled" : "shown";
      r.text = "x";
      runs[k].requests.push_back(r);
    }
    runs[k].summary = summarize(runs[k].requests, 60, 6000);
  }
  return runs;
}

// A decoded 8-bit RGB or RGBA PNG.
struct Image {
  uint32_t width = 0, height = 0, channels = 0;
  std::vector<uint8_t> pixels;  // rows of width * channels bytes
  const uint8_t* at(uint32_t x, uint32_t y) const { return &pixels[(size_t{y} * width + x) * channels]; }
};

uint32_t be32(const std::string& s, size_t at) {
  auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<uint8_t>(s[at + i])); };
  return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}

int paeth(int a, int b, int c) {
  int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// Enough of PNG for Chromium's screenshots: 8-bit RGB/RGBA, not interlaced.
bool decode_png(const std::string& file, Image& img) {
  if (file.size() < 8 || file.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return false;
  std::string idat;
  for (size_t at = 8; at + 8 <= file.size();) {
    uint32_t len = be32(file, at);
    std::string type = file.substr(at + 4, 4);
    if (at + 12 + len > file.size()) return false;
    if (type == "IHDR") {
      img.width = be32(file, at + 8);
      img.height = be32(file, at + 12);
      int depth = static_cast<uint8_t>(file[at + 16]), color = static_cast<uint8_t>(file[at + 17]);
      if (depth != 8 || (color != 2 && color != 6) || file[at + 20] != 0) return false;
      img.channels = color == 6 ? 4 : 3;
    } else if (type == "IDAT") {
      idat += file.substr(at + 8, len);
    }
    at += 12 + len;
  }
  const size_t stride = size_t{img.width} * img.channels;
  std::vector<uint8_t> raw((stride + 1) * img.height);
  uLongf raw_len = raw.size();
  if (uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK) return false;
  img.pixels.assign(stride * img.height, 0);
  for (uint32_t y = 0; y < img.height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    uint8_t* out = &img.pixels[y * stride];
    const uint8_t* up = y ? &img.pixels[(y - 1) * stride] : nullptr;
    for (size_t i = 0; i < stride; ++i) {
      int a = i >= img.channels ? out[i - img.channels] : 0, b = up ? up[i] : 0,
          c = up && i >= img.channels ? up[i - img.channels] : 0;
      int pred = filter == 0 ? 0 : filter == 1 ? a : filter == 2 ? b : filter == 3 ? (a + b) / 2 : paeth(a, b, c);
      out[i] = static_cast<uint8_t>(in[i] + pred);
    }
  }
  return true;
}

}  // namespace

TEST_CASE("the HTML report is self-contained and holds every plot") {
  std::string h = html_report(two_runs(), "demo <file>");
  CHECK(h.starts_with("<!DOCTYPE html>"));
  CHECK(h.find("demo &lt;file&gt;") != std::string::npos);
  CHECK(h.find("other &amp; slow") != std::string::npos);
  CHECK(h.find("<script") == std::string::npos);
  CHECK(h.find("src=") == std::string::npos);
  CHECK(h.find("href=") == std::string::npos);
  CHECK(h.find("<svg id='histogram-first'") != std::string::npos);
  CHECK(h.find("<svg id='histogram-final'") != std::string::npos);
  CHECK(h.find("<svg id='timeline'") != std::string::npos);
  size_t points = 0;
  for (size_t at = h.find("class='point'"); at != std::string::npos; at = h.find("class='point'", at + 1)) ++points;
  CHECK(points == 2 * 54);  // every answered request of both runs
  CHECK(h.find("#d62728") != std::string::npos);  // the second run's colour
}

TEST_CASE("headless Chromium renders the report's plots") {
  const char* chromium = nullptr;
  for (const char* c : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (std::filesystem::exists(c)) chromium = c;
  if (!chromium) {
    std::printf("SKIPPED: no chromium (Debian package 'chromium') to render the HTML report\n");
    std::fflush(stdout);
    std::_Exit(wafer::test::kSkipExitCode);
  }
  wafer::test::TempDir dir;
  wafer::test::write_file(dir / "r.html", html_report(two_runs(), "render"));
  const std::string cmd = std::string(chromium) +
                          " --headless --no-sandbox --disable-gpu --disable-background-networking"
                          " --disable-component-update --disable-sync --no-first-run --hide-scrollbars"
                          " --user-data-dir='" + (dir / "profile").string() + "' --window-size=900,1400 --screenshot='" +
                          (dir / "shot.png").string() + "' 'file://" + (dir / "r.html").string() + "' >/dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  Image img;
  REQUIRE(decode_png(wafer::test::read_file(dir / "shot.png"), img));
  REQUIRE(img.width == 900);
  // Rows that show the first run's bar colour (#1f77b4) and the second's (#d62728), in
  // solid runs of pixels (bars), and rows with blended point colours below them.
  auto rows_with = [&](uint8_t r, uint8_t g, uint8_t b, int tolerance) {
    std::vector<uint32_t> rows;
    for (uint32_t y = 0; y < img.height; ++y) {
      int n = 0;
      for (uint32_t x = 0; x < img.width; ++x) {
        const uint8_t* p = img.at(x, y);
        n += std::abs(p[0] - r) <= tolerance && std::abs(p[1] - g) <= tolerance && std::abs(p[2] - b) <= tolerance;
      }
      if (n >= 3) rows.push_back(y);
    }
    return rows;
  };
  auto blue = rows_with(0x1f, 0x77, 0xb4, 2), red = rows_with(0xd6, 0x27, 0x28, 2);
  INFO("blue rows " << blue.size() << ", red rows " << red.size());
  REQUIRE(blue.size() > 100);  // two histograms' worth of bar rows (and the legend swatch)
  REQUIRE(red.size() > 100);
  // Bars in two separate plots: a gap of plain rows between two groups of bar rows.
  bool two_groups = false;
  for (size_t i = 1; i < blue.size(); ++i) two_groups |= blue[i] - blue[i - 1] > 60;
  CHECK(two_groups);
  // The timeline's points (75 % opaque on white) lie below the last histogram's bars.
  auto light_blue = rows_with(0x57, 0x99, 0xc7, 12);
  REQUIRE(!light_blue.empty());
  CHECK(light_blue.back() > blue.back());
}
