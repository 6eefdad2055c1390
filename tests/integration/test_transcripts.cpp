// Recorded transcripts: JSON-RPC sent to the real `wafer lsp`, and the replies expected
// back, one file per bad-input case in tests/integration/transcripts/*.lsp. Format, one
// directive per line:
//   # comment                      args: FLAGS ($FAKE = the fake engine script's path)
//   fake: {JSON script}            > {JSON}      send one framed message
//   raw> BYTES                     send bytes as is (C escapes: \r \n \t \\ \xNN)
//   big> N                         send a Content-Length: N header and N filler bytes
//   < {JSON}                       the next message must match (a subset; a string value
//                                  starting with "~" matches as a substring); log, trace,
//                                  progress and showMessage notifications may come between
//   close                          close stdin      exit N   the daemon must exit with N
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/lsp_client.h"

using namespace wafer::test;
namespace fs = std::filesystem;

namespace {

std::string unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    char c = s[++i];
    if (c == 'r') out += '\r';
    else if (c == 'n') out += '\n';
    else if (c == 't') out += '\t';
    else if (c == 'x' && i + 2 < s.size() + 1) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else out += c;
  }
  return out;
}

bool matches(const json& expected, const json& actual) {
  if (expected.is_string() && actual.is_string()) {
    const std::string& e = expected.get_ref<const std::string&>();
    if (e.starts_with("~")) return actual.get<std::string>().find(e.substr(1)) != std::string::npos;
    return e == actual.get<std::string>();
  }
  if (expected.is_object()) {
    if (!actual.is_object()) return false;
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      auto a = actual.find(it.key());
      if (a == actual.end() || !matches(it.value(), *a)) return false;
    }
    return true;
  }
  if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size()) return false;
    for (size_t i = 0; i < expected.size(); ++i)
      if (!matches(expected[i], actual[i])) return false;
    return true;
  }
  return expected == actual;
}

std::string encode(const std::string& body) { return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body; }

bool skippable(const json& m) {
  std::string method = m.value("method", "");
  return method == "window/logMessage" || method == "$/logTrace" || method == "$/progress" ||
         method == "window/showMessage";
}

std::vector<std::string> split_args(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> v;
  for (std::string w; in >> w;) v.push_back(w);
  return v;
}

void run_transcript(const fs::path& file) {
  TempDir dir;
  std::ifstream in(file);
  REQUIRE(in);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::vector<std::string> args;
  for (const std::string& line : lines) {
    if (line.starts_with("fake: ")) write_file(dir / "fake.json", line.substr(6));
    if (line.starts_with("args: ")) args = split_args(line.substr(6));
  }
  for (auto& a : args)
    if (a == "$FAKE") a = (dir / "fake.json").string();
  LspClient c(args);
  int line_no = 0;
  for (const std::string& line : lines) {
    ++line_no;
    INFO(file.filename().string() << ":" << line_no << ": " << line);
    if (line.empty() || line[0] == '#' || line.starts_with("args: ") || line.starts_with("fake: ")) continue;
    if (line.starts_with("> ")) {
      c.send_raw(encode(line.substr(2)));
    } else if (line.starts_with("raw> ")) {
      c.send_raw(unescape(line.substr(5)));
    } else if (line.starts_with("big> ")) {
      size_t n = std::stoull(line.substr(5));
      c.send_raw("Content-Length: " + std::to_string(n) + "\r\n\r\n");
      std::string chunk(1 << 20, 'x');
      for (size_t sent = 0; sent < n; sent += chunk.size())
        c.send_raw(std::string_view(chunk).substr(0, std::min(chunk.size(), n - sent)));
    } else if (line.starts_with("< ")) {
      json expected = json::parse(line.substr(2));
      std::optional<json> got;
      for (;;) {
        got = c.next(10000);
        if (!got || matches(expected, *got) || !skippable(*got)) break;
      }
      REQUIRE(got);
      INFO("got " << got->dump());
      CHECK(matches(expected, *got));
    } else if (line == "close") {
      c.process().close_stdin();
    } else if (line.starts_with("exit ")) {
      CHECK(c.process().wait(10000) == std::stoi(line.substr(5)));
    } else {
      FAIL("unknown transcript directive");
    }
  }
}

}  // namespace

TEST_CASE("transcripts: every recorded bad-input case", "[integration][transcripts]") {
  fs::path dir = fs::path(__FILE__).parent_path() / "transcripts";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".lsp") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 10);
  for (const fs::path& f : files) {
    DYNAMIC_SECTION(f.filename().string()) { run_transcript(f); }
  }
}
