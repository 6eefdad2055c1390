// What the tests' raw socket clients of a listening daemon (`wafer lsp --listen`) send and
// read: framed LSP messages, the token from the daemon's token file, and its refusal line.
#pragma once

#include <filesystem>
#include <string>

#include "tests/support/testing.h"

namespace wafer::test {

inline std::string frame(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

inline const std::string kInitialize =
    frame(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}})");
inline const std::string kShutdownExit =
    frame(R"({"jsonrpc":"2.0","id":2,"method":"shutdown"})") + frame(R"({"jsonrpc":"2.0","method":"exit"})");

// The token in a token file, without its line end.
inline std::string token_in(const std::filesystem::path& file) {
  std::string t = read_file(file);
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  return t;
}

// Whether a client's whole output is one `wafer-error:` line with `reason` and no LSP reply.
inline bool refused_with(const std::string& out, const std::string& reason) {
  return out.starts_with("wafer-error: ") && out.find(reason) != std::string::npos && out.ends_with("\r\n") &&
         out.find('\n') == out.size() - 1 && out.find("jsonrpc") == std::string::npos;
}

}  // namespace wafer::test
