// File names the way Windows users have them, driving the real `wafer lsp` over pipes: a
// model under a folder with spaces and letters outside ASCII, a missing or locked model
// (a clear message; the daemon keeps serving), and a document whose URI the editor spells
// differently from one message to the next (VS Code's "file:///d%3A/..." against
// "file:///D:/..."; another case where the file system ignores it). Also run under wine.
#include <catch2/catch.hpp>

#include <filesystem>

#include "engine/base/path_utf8.h"
#include "server/platform/platform.h"
#include "tests/support/lsp_client.h"

#if defined(_WIN32)
#include <windows.h>
#endif

using namespace wafer::test;
using wafer::path_from_utf8;
using wafer::utf8_from_path;
namespace fs = std::filesystem;

namespace {

bool is_model_loaded(const json& m) {
  return m.value("method", "") == "window/logMessage" &&
         m["params"]["message"].get<std::string>().find("model loaded") != std::string::npos;
}

bool is_show_message(const json& m) { return m.value("method", "") == "window/showMessage"; }

fs::path bundled_model() { return fs::path(__FILE__).parent_path() / ".." / ".." / "models" / "wafer-tiny-code-q8_0.gguf"; }

// The bundled model copied to <dir>/Modèles 模型 Ёж/tiny modèl ü.gguf; its UTF-8 path.
std::string model_at_odd_path(const TempDir& dir) {
  const std::string utf8 = utf8_from_path(dir.path()) + "/Modèles 模型 Ёж/tiny modèl ü.gguf";
  fs::create_directories(path_from_utf8(utf8).parent_path());
  fs::copy_file(bundled_model(), path_from_utf8(utf8));
  return utf8;
}

json open_params(const std::string& uri, const std::string& text) {
  return {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}};
}

}  // namespace

TEST_CASE("file names: a model under a folder with spaces and non-ASCII letters loads and completes", "[integration]") {
  TempDir dir;
  const std::string model = model_at_odd_path(dir);
  LspClient c({"--model", model, "--threads", "1", "--debounce-ms", "0"});
  c.initialize();
  auto loaded = c.wait_for([](const json& m) { return is_model_loaded(m) || is_show_message(m); }, 60000);
  REQUIRE(loaded);
  INFO(loaded->dump() + "\n" + c.process().stderr_text());
  REQUIRE(is_model_loaded(*loaded));
  const std::string uri = "file:///work/f.py";
  c.notify("textDocument/didOpen", open_params(uri, "def add(a, b):\n    return \n"));
  json r = c.request("textDocument/inlineCompletion", inline_completion_params(uri, 1, 11), 60000);
  INFO(r.dump());
  REQUIRE(r.contains("result"));
  CHECK(r["result"]["items"].is_array());
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("file names: the model under a non-ASCII name deleted, then replaced, while the daemon runs", "[integration]") {
  TempDir dir;
  const std::string model = model_at_odd_path(dir);
  LspClient c({"--model", model, "--threads", "1", "--debounce-ms", "0"});
  c.initialize();
  REQUIRE(c.wait_for(is_model_loaded, 60000));
  const std::string uri = "file:///work/f.py";
  c.notify("textDocument/didOpen", open_params(uri, "def add(a, b):\n    return \n"));
  REQUIRE(c.request("textDocument/inlineCompletion", inline_completion_params(uri, 1, 11), 60000).contains("result"));
  std::error_code ec;
  fs::remove(path_from_utf8(model), ec);  // the open view keeps the old contents
  INFO("remove: " + ec.message());
  json r = c.request("textDocument/inlineCompletion", inline_completion_params(uri, 1, 10), 60000);
  CHECK(r.contains("result"));
  const fs::path fresh = path_from_utf8(model).parent_path() / path_from_utf8("nouveau é.gguf");
  fs::copy_file(bundled_model(), fresh);
  fs::rename(fresh, path_from_utf8(model), ec);  // as an update puts a new file in place
  INFO("rename: " + ec.message());
  r = c.request("textDocument/inlineCompletion", inline_completion_params(uri, 1, 11), 60000);
  INFO(r.dump() + "\n" + c.process().stderr_text());
  CHECK(r.contains("result"));
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("file names: a missing model under a non-ASCII name is named in the message, and the daemon serves on", "[integration]") {
  TempDir dir;
  const std::string model = utf8_from_path(dir.path()) + "/Modèles 模型/absent ü.gguf";
  LspClient c({"--model", model, "--threads", "1", "--debounce-ms", "0"});
  c.initialize();
  auto shown = c.wait_for(is_show_message, 30000);
  REQUIRE(shown);
  const std::string message = (*shown)["params"]["message"];
  CHECK_THAT(message, Catch::Contains(model));  // the name as given, not mangled
  CHECK_THAT(message, Catch::Contains("no such file"));
  const std::string uri = "file:///work/f.py";
  c.notify("textDocument/didOpen", open_params(uri, "x = \n"));
  json r = c.request("textDocument/inlineCompletion", inline_completion_params(uri, 0, 4));
  CHECK(r.contains("result"));
  CHECK(c.shutdown_and_exit() == 0);
}

#if defined(_WIN32)
TEST_CASE("file names: a model locked by another program is a message, and the daemon serves on", "[integration]") {
  TempDir dir;
  const std::string model = model_at_odd_path(dir);
  // No sharing at all: what a program that opened the file exclusively leaves others.
  HANDLE held = CreateFileW(path_from_utf8(model).c_str(), GENERIC_READ, 0, nullptr, OPEN_EXISTING,
                            FILE_ATTRIBUTE_NORMAL, nullptr);
  REQUIRE(held != INVALID_HANDLE_VALUE);
  LspClient c({"--model", model, "--threads", "1", "--debounce-ms", "0"});
  c.initialize();
  auto shown = c.wait_for(is_show_message, 30000);
  REQUIRE(shown);
  const std::string message = (*shown)["params"]["message"];
  CHECK_THAT(message, Catch::Contains("is locked by another process"));
  CHECK_THAT(message, Catch::Contains(model));
  json stats = c.request("wafer/stats", nullptr);
  CHECK(stats.contains("result"));
  CloseHandle(held);
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("file names: a model named by a long path (the extended-length prefix) loads", "[integration]") {
  TempDir dir;
  std::string model = model_at_odd_path(dir);
  for (char& ch : model)
    if (ch == '/') ch = '\\';  // the long-path prefix turns off the '/' conversion
  model = "\\\\?\\" + model;
  LspClient c({"--model", model, "--threads", "1", "--debounce-ms", "0"});
  c.initialize();
  auto loaded = c.wait_for([](const json& m) { return is_model_loaded(m) || is_show_message(m); }, 60000);
  REQUIRE(loaded);
  INFO(model + "\n" + loaded->dump());
  CHECK(is_model_loaded(*loaded));
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("file names: a model on a share that does not answer is a message, and the daemon serves on", "[integration]") {
  const std::string model = "\\\\wafer-no-such-server.invalid\\models\\m.gguf";
  LspClient c({"--model", model, "--threads", "1", "--debounce-ms", "0"});
  c.initialize();
  auto shown = c.wait_for(is_show_message, 60000);
  REQUIRE(shown);
  const std::string message = (*shown)["params"]["message"];
  INFO(message);
  CHECK_THAT(message, Catch::Contains(model));
  // Windows says the share is unreachable; wine may call the server's path missing.
  CHECK((message.find("the network share is unreachable") != std::string::npos ||
         message.find("no such file") != std::string::npos));
  json stats = c.request("wafer/stats", nullptr);
  CHECK(stats.contains("result"));
  CHECK(c.shutdown_and_exit() == 0);
}
#endif

TEST_CASE("file names: a document found under another spelling of its URI", "[integration]") {
  TempDir dir;
  const std::string script = utf8_from_path(dir.path() / "fake.json");
  write_file(path_from_utf8(script), json{{"text", "1 + 1"}}.dump());
  LspClient c({"--fake-engine", script, "--debounce-ms", "0"});
  c.initialize();
  // As VS Code sends a file of drive D: on Windows.
  c.notify("textDocument/didOpen", open_params("file:///d%3A/Proj/Src/A.py", "x = \n"));
  // The drive letter written out, in upper case, by another client: the same file everywhere.
  json same = c.request("textDocument/inlineCompletion", inline_completion_params("file:///D:/Proj/Src/A.py", 0, 4));
  INFO(same.dump());
  REQUIRE(same.contains("result"));
  REQUIRE(same["result"]["items"].size() == 1);
  CHECK(same["result"]["items"][0]["insertText"] == "1 + 1");
  // Another case: one file where file names ignore case (Windows, macOS), another elsewhere.
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", "file:///D:/proj/src/a.py"}, {"version", 2}}},
                                      {"contentChanges", {{{"text", "y = \n"}}}}});
  json other = c.request("textDocument/inlineCompletion", inline_completion_params("file:///d%3a/PROJ/SRC/a.py", 0, 4));
  INFO(other.dump());
  if (wafer::os::file_names_ignore_case()) {
    REQUIRE(other.contains("result"));
    REQUIRE(other["result"]["items"].size() == 1);
    CHECK(other["result"]["items"][0]["range"]["start"]["character"] == 4);
  } else {
    CHECK(other.contains("error"));  // not open under that name
  }
  CHECK(c.shutdown_and_exit() == 0);
}
