// Drives the real `wafer lsp` CLI (wafer-scripted) over pipes as an editor does. The engine
// is the scripted fake engine (--fake-engine), so completions here exercise the daemon, not
// a model.
#include <catch2/catch.hpp>

#include <regex>
#include <thread>

#include "engine/engine.h"
#include "tests/support/lsp_client.h"

using namespace wafer::test;

namespace {

const char* kUri = "file:///work/fib.py";
const char* kText = "def fib(n):\n    if n < 2:\n        return n\n    return \n";

std::string write_script(const TempDir& dir, const json& script) {
  auto path = dir / "fake.json";
  write_file(path, script.dump());
  return path.string();
}

json open_params(const std::string& text, int version = 1) {
  return {{"textDocument", {{"uri", kUri}, {"languageId", "python"}, {"version", version}, {"text", text}}}};
}

json inline_params(int line, int character, int trigger_kind = 2) {
  return inline_completion_params(kUri, line, character, trigger_kind);
}

json insert_change(int version, int line, int character, const std::string& text) {
  return {{"textDocument", {{"uri", kUri}, {"version", version}}},
          {"contentChanges", {{{"range", {{"start", {{"line", line}, {"character", character}}},
                                          {"end", {{"line", line}, {"character", character}}}}},
                               {"text", text}}}}};
}

bool is_model_loaded(const json& m) {
  return m.value("method", "") == "window/logMessage" &&
         m["params"]["message"].get<std::string>().find("model loaded") != std::string::npos;
}

}  // namespace

TEST_CASE("lsp session: initialize / open / burst of completions / shutdown / exit", "[integration]") {
  TempDir dir;
  std::string script = write_script(dir, {{"rules", {{{"prefix_ends_with", "return fib"}, {"text", "(n - 1) + fib(n - 2)"}}}},
                                          {"text", "None"},
                                          {"chunk_bytes", 3},
                                          {"token_ms", 1}});
  // The three requests below must all arrive within one debounce, so each supersedes the
  // one before; 300 ms leaves room for a loaded machine or a client running under wine. No
  // early prefill: its end would end the debounce at once (the fake engine prefills in no
  // time), and a slow client's second request could come after the first was answered.
  LspClient c({"--fake-engine", script, "--debounce-ms", "300", "--early-prefill", "off"});
  json init = c.initialize({{"general", {{"positionEncodings", {"utf-16"}}}}});
  CHECK(init["result"]["capabilities"]["positionEncoding"] == "utf-16");
  CHECK(init["result"]["capabilities"]["inlineCompletionProvider"] == true);
  CHECK(init["result"]["capabilities"]["textDocumentSync"]["change"] == 2);
  REQUIRE(c.wait_for(is_model_loaded));
  c.notify("textDocument/didOpen", open_params(kText));

  // Typing "fib" after "return " on line 3, a request after each keystroke.
  std::vector<int64_t> ids;
  int version = 1;
  int col = 11;
  for (char ch : std::string("fib")) {
    c.notify("textDocument/didChange", insert_change(++version, 3, col++, std::string(1, ch)));
    ids.push_back(c.send_request("textDocument/inlineCompletion", inline_params(3, col)));
  }
  for (size_t i = 0; i + 1 < ids.size(); ++i) {
    auto r = c.wait_for_response(ids[i]);
    REQUIRE(r);
    // Superseded by the newer request: no suggestion (RequestCancelled is for $/cancelRequest),
    // marked as superseded.
    REQUIRE(r->contains("result"));
    CHECK((*r)["result"]["items"].empty());
    CHECK((*r)["result"]["wafer"]["outcome"] == "superseded");
  }
  auto last = c.wait_for_response(ids.back());
  REQUIRE(last);
  INFO(last->dump());
  REQUIRE((*last)["result"]["items"].size() == 1);
  CHECK((*last)["result"]["items"][0]["insertText"] == "(n - 1) + fib(n - 2)");
  CHECK((*last)["result"]["items"][0]["range"] == json::parse(R"({"start":{"line":3,"character":14},"end":{"line":3,"character":14}})"));

  json stats = c.request("wafer/stats", nullptr);
  CHECK(stats["result"]["counts"]["inline_requests"] == 3);
  CHECK(stats["result"]["counts"]["outcome_superseded"] == 2);
  CHECK(stats["result"]["counts"]["outcome_done"] == 1);
  CHECK(stats["result"]["latency_ms"]["debounce_ms"]["count"] == 3);
  // The kernels in use: the ones the engine chooses on this CPU (e.g. "avx512-vnni+amx",
  // "avx512-vnni", "avx2-vnni", "avx2", "scalar"); the fake engine decodes nothing, so
  // the SIMD backends report the prefetch trial as undecided.
  const json& kernels = stats["result"]["kernels"];
  CHECK(kernels["name"] == wafer::compute_kernels(/*amx=*/true, /*amx_bf16=*/false).name);
  CHECK((kernels["name"] == "scalar" || kernels["tuning"].get<std::string>().find("undecided") != std::string::npos));
  // What the daemon holds: its resident memory and the state it keeps per document, which
  // didClose frees.
  const json& memory = stats["result"]["memory"];
  CHECK(memory["rss_kib"].get<long>() > 0);
  CHECK(memory["documents"] == 1);
  CHECK(memory["edit_times"] == 1);
  CHECK(memory["open_requests"] == 1);  // wafer/stats itself
  c.notify("textDocument/didClose", {{"textDocument", {{"uri", kUri}}}});
  const json closed = c.request("wafer/stats", nullptr)["result"]["memory"];
  for (const char* kept : {"documents", "typing_cache_entries", "definition_lists", "extra_context_choices", "edit_times"})
    CHECK(closed[kept] == 0);
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("lsp session: an edit while a completion runs or waits never fails the request", "[integration]") {
  // LSP 3.18: "A server should NOT send [ContentModified] if it detects a content change
  // in its unprocessed messages." A finished completion is answered with its result for
  // the text it was asked about; one still in its debounce is dropped with an empty list.
  TempDir dir;
  std::string script = write_script(dir, {{"text", "abcdefgh"}, {"chunk_bytes", 1}, {"token_ms", 40}});
  LspClient c({"--fake-engine", script, "--debounce-ms", "0"});
  json init = c.initialize(json::object(), json::array());  // [] as "no options"
  REQUIRE(init.contains("result"));
  REQUIRE(c.wait_for(is_model_loaded));
  c.notify("textDocument/didOpen", open_params(kText));
  json params = inline_params(3, 11);
  params["partialResultToken"] = "p";
  int64_t id = c.send_request("textDocument/inlineCompletion", params);
  REQUIRE(c.wait_for([](const json& m) { return m.value("method", "") == "$/progress"; }));
  c.notify("textDocument/didChange", insert_change(2, 0, 0, "# typed while streaming\n"));
  auto r = c.wait_for_response(id);
  REQUIRE(r);
  INFO(r->dump());
  REQUIRE_FALSE(r->contains("error"));
  CHECK((*r)["result"]["items"][0]["insertText"] == "abcdefgh");
  CHECK((*r)["result"]["items"][0]["range"]["start"] == json({{"line", 3}, {"character", 11}}));

  // The request must still be in its debounce when the edit arrives, on a slow machine
  // (sanitizers) too: the debounce runs from the last keystroke, so one comes right before
  // the request (the first completion may have ended more than a debounce after the edit
  // above), and without an early prefill, whose end would end the debounce at once.
  c.notify("workspace/didChangeConfiguration", {{"settings", {{"debounceMs", 1000}, {"earlyPrefill", false}}}});
  c.notify("textDocument/didChange", insert_change(3, 0, 0, "#"));
  int64_t waiting = c.send_request("textDocument/inlineCompletion", inline_params(4, 0));
  c.notify("textDocument/didChange", insert_change(4, 0, 0, "#"));
  auto dropped = c.wait_for_response(waiting);
  REQUIRE(dropped);
  INFO(dropped->dump());
  REQUIRE_FALSE(dropped->contains("error"));
  CHECK((*dropped)["result"]["items"].empty());
  json stats = c.request("wafer/stats", nullptr);
  CHECK(stats["result"]["counts"]["answered_after_edit"] == 1);
  CHECK(stats["result"]["counts"]["outcome_stale"] == 1);
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("lsp session: invoked requests skip the debounce and $/cancelRequest cancels", "[integration]") {
  TempDir dir;
  std::string script = write_script(dir, {{"text", "x"}, {"first_token_ms", 2000}});
  LspClient c({"--fake-engine", script, "--debounce-ms", "5000"});
  c.initialize();
  REQUIRE(c.wait_for(is_model_loaded));
  c.notify("textDocument/didOpen", open_params(kText));
  auto t0 = std::chrono::steady_clock::now();
  int64_t id = c.send_request("textDocument/inlineCompletion", inline_params(3, 11, /*invoked=*/1));
  // Wait until the job is inside the engine (engine_busy), then cancel it.
  for (int i = 0; i < 500; ++i) {
    json s = c.request("wafer/stats", nullptr);
    if (s["result"]["engine_busy"] == true) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  c.notify("$/cancelRequest", {{"id", id}});
  auto r = c.wait_for_response(id);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(r);
  CHECK((*r)["error"]["code"] == -32800);
  CHECK(ms < 1500);  // neither the 5 s debounce nor the 2 s first token was waited for
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("lsp session: streaming through $/progress with a partialResultToken", "[integration]") {
  TempDir dir;
  std::string script = write_script(dir, {{"text", "abcdefgh"}, {"chunk_bytes", 2}, {"token_ms", 1}});
  LspClient c({"--fake-engine", script, "--debounce-ms", "0"});
  c.initialize({{"general", {{"positionEncodings", {"utf-8", "utf-16"}}}}});
  REQUIRE(c.wait_for(is_model_loaded));
  c.notify("textDocument/didOpen", open_params(kText));
  json params = inline_params(3, 11);
  params["partialResultToken"] = "stream-1";
  int64_t id = c.send_request("textDocument/inlineCompletion", params);
  auto r = c.wait_for_response(id);
  REQUIRE(r);
  CHECK((*r)["result"]["items"][0]["insertText"] == "abcdefgh");
  std::vector<std::string> partial;
  for (const json& m : c.received())
    if (m.value("method", "") == "$/progress" && m["params"]["token"] == "stream-1")
      partial.push_back(m["params"]["value"]["items"][0]["insertText"]);
  CHECK(partial == std::vector<std::string>{"ab", "abcd", "abcdef", "abcdefgh"});
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("lsp session: the confidence gate streams while the first line passes", "[integration]") {
  TempDir dir;
  std::string script = write_script(
      dir, {{"rules", {{{"prefix_ends_with", "return "}, {"text", "n - 1\n    x = 2\n"}, {"confidence", 0.2}},
                       // Sure of its first two chunks, then not: the first line as a whole fails.
                       {{"prefix_ends_with", "< 2:"}, {"text", " pass  # x\n"}, {"confidences", {0.9, 0.9, 0.05}}}}},
            {"text", "abcdefgh"}, {"confidence", 0.9}, {"chunk_bytes", 2}, {"token_ms", 1}});
  LspClient c({"--fake-engine", script, "--debounce-ms", "0", "--ahead-tokens", "0"});
  c.initialize({{"general", {{"positionEncodings", {"utf-8", "utf-16"}}}}});
  REQUIRE(c.wait_for(is_model_loaded));
  c.notify("textDocument/didOpen", open_params(kText));
  auto partials = [&](const std::string& token) {
    std::vector<std::string> texts;
    for (const json& m : c.received())
      if (m.value("method", "") == "$/progress" && m["params"]["token"] == token)
        texts.push_back(m["params"]["value"]["items"][0]["insertText"]);
    return texts;
  };
  json held = inline_params(3, 11);
  held["partialResultToken"] = "held";
  auto r = c.wait_for_response(c.send_request("textDocument/inlineCompletion", held));
  REQUIRE(r);
  CHECK((*r)["result"]["items"].empty());
  CHECK((*r)["result"]["wafer"]["outcome"] == "held_back");
  CHECK(partials("held").empty());
  // A sure suggestion streams from its first token on, as ungated ones do.
  json sure = inline_params(0, 0);
  sure["partialResultToken"] = "sure";
  r = c.wait_for_response(c.send_request("textDocument/inlineCompletion", sure));
  REQUIRE(r);
  CHECK((*r)["result"]["items"][0]["insertText"] == "abcdefgh");
  CHECK(partials("sure") == std::vector<std::string>{"ab", "abcd", "abcdef", "abcdefgh"});
  // Sure of its start only: the start streams, the answer holds it back (the editor takes
  // the ghost text back), and the statistics say so.
  json unsure = inline_params(1, 13);
  unsure["partialResultToken"] = "unsure";
  r = c.wait_for_response(c.send_request("textDocument/inlineCompletion", unsure));
  REQUIRE(r);
  CHECK((*r)["result"]["items"].empty());
  CHECK((*r)["result"]["wafer"]["outcome"] == "held_back");  // the client takes back what streamed
  CHECK(partials("unsure") == std::vector<std::string>{" p", " pas"});
  const json counts = c.request("wafer/stats", nullptr)["result"]["counts"];
  CHECK(counts["held_back_low_confidence"] == 2);
  CHECK(counts["retracted_low_confidence"] == 1);
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("lsp session: textDocument/completion fallback returns one item with a textEdit", "[integration]") {
  TempDir dir;
  std::string script = write_script(dir, {{"text", "fib(n - 1)\n"}});
  LspClient c({"--fake-engine", script, "--debounce-ms", "0"});
  c.initialize();
  REQUIRE(c.wait_for(is_model_loaded));
  c.notify("textDocument/didOpen", open_params(kText));
  json r = c.request("textDocument/completion", inline_params(3, 11, 1));
  REQUIRE(r["result"]["items"].size() == 1);
  CHECK(r["result"]["items"][0]["label"] == "fib(n - 1)");
  CHECK(r["result"]["items"][0]["textEdit"]["newText"] == "fib(n - 1)");  // trailing line break trimmed
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("lsp session: a missing model is one showMessage error and empty completions", "[integration]") {
  LspClient c({"--model", "/nonexistent/model.gguf"});
  c.initialize({{"window", {{"workDoneProgress", true}}}});
  auto create = c.wait_for([](const json& m) { return m.value("method", "") == "window/workDoneProgress/create"; });
  REQUIRE(create);
  c.send({{"jsonrpc", "2.0"}, {"id", (*create)["id"]}, {"result", nullptr}});
  auto shown = c.wait_for([](const json& m) { return m.value("method", "") == "window/showMessage"; });
  REQUIRE(shown);
  CHECK((*shown)["params"]["type"] == 1);
  CHECK((*shown)["params"]["message"].get<std::string>().find("/nonexistent/model.gguf") != std::string::npos);
  c.notify("textDocument/didOpen", open_params(kText));
  for (int i = 0; i < 3; ++i) {
    json r = c.request("textDocument/inlineCompletion", inline_params(3, 11, 1));
    CHECK(r["result"]["items"].empty());
  }
  int shown_count = 0;
  for (const json& m : c.received()) shown_count += m.value("method", "") == "window/showMessage";
  CHECK(shown_count == 1);
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("lsp session: initializationOptions override flags and configuration reloads the model", "[integration]") {
  TempDir dir;
  std::string script = write_script(dir, {{"text", "ok"}});
  LspClient c({"--model", "/nonexistent/flag.gguf", "--debounce-ms", "3000"});
  c.initialize(json::object(), {{"debounceMs", 0}});
  auto shown = c.wait_for([](const json& m) { return m.value("method", "") == "window/showMessage"; });
  REQUIRE(shown);
  CHECK((*shown)["params"]["message"].get<std::string>().find("flag.gguf") != std::string::npos);
  // Unknown-typed settings are refused with a warning naming the key.
  c.notify("workspace/didChangeConfiguration", {{"settings", {{"wafer", {{"maxTokens", "many"}}}}}});
  auto warned = c.wait_for([](const json& m) { return m.value("method", "") == "window/showMessage"; });
  REQUIRE(warned);
  CHECK((*warned)["params"]["message"].get<std::string>().find("maxTokens") != std::string::npos);
  c.notify("textDocument/didOpen", open_params(kText));
  json r = c.request("textDocument/inlineCompletion", inline_params(3, 11));
  CHECK(r["result"]["items"].empty());
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("lsp session: exit without shutdown exits 1 and closed stdin ends the daemon", "[integration]") {
  {
    LspClient c({});
    c.initialize();
    c.send({{"jsonrpc", "2.0"}, {"method", "exit"}});
    CHECK(c.process().wait(10000) == 1);
  }
  {
    LspClient c({});
    c.initialize();
    c.request("shutdown", nullptr);
    c.process().close_stdin();
    CHECK(c.process().wait(10000) == 0);
  }
}

TEST_CASE("lsp session: loopback TCP with --listen and refusal of remote addresses", "[integration]") {
  TempDir cache;  // where the daemon writes its token file
  wafer::os::set_env("XDG_CACHE_HOME", cache.path().string().c_str());
  Subprocess refused({wafer_binary().string(), "lsp", "--listen", "0.0.0.0:0"});
  CHECK(refused.wait(10000) == 1);
  CHECK(refused.stderr_text().find("--allow-remote") != std::string::npos);

  Subprocess daemon({wafer_binary().string(), "lsp", "--listen", "127.0.0.1:0"});
  wafer::os::set_env("XDG_CACHE_HOME", nullptr);
  int port = 0;
  std::string token_file;
  for (int i = 0; i < 1000 && token_file.empty(); ++i) {
    std::smatch m;
    std::string err = daemon.stderr_text();
    if (std::regex_search(err, m, std::regex("listening on 127\\.0\\.0\\.1:(\\d+)\nwafer lsp: token file ([^\n]+)\n"))) {
      port = std::stoi(m[1]);
      token_file = m[2];
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  REQUIRE(port > 0);
  std::string token = read_file(token_file);
  token.erase(token.find('\n'));
  // Speak LSP over the socket with a tiny blocking client, after the token line
  // (tests/integration/test_listen_token.cpp checks the refusals).
  Subprocess nc({"/usr/bin/python3", "-c",
                 "import socket,sys\n"
                 "s=socket.create_connection(('127.0.0.1'," + std::to_string(port) + "))\n"
                 "def send(b):\n"
                 "  s.sendall(b'Content-Length: %d\\r\\n\\r\\n' % len(b) + b)\n"
                 "s.sendall(b'wafer-token " + token + "\\r\\n')\n"
                 "send(b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"capabilities\":{}}}')\n"
                 "send(b'{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"shutdown\"}')\n"
                 "send(b'{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}')\n"
                 "data=b''\n"
                 "while True:\n"
                 "  d=s.recv(65536)\n"
                 "  if not d: break\n"
                 "  data+=d\n"
                 "sys.stdout.write(data.decode())\n"});
  std::string out;
  while (auto bytes = nc.read_some(10000)) {
    if (bytes->empty()) break;
    out += *bytes;
  }
  CHECK(nc.wait(10000) == 0);
  CHECK(daemon.wait(10000) == 0);
  CHECK(out.find("\"inlineCompletionProvider\":true") != std::string::npos);
  CHECK(out.find("\"id\":2,\"jsonrpc\":\"2.0\",\"result\":null") != std::string::npos);
}

TEST_CASE("lsp session: requests that come while the model loads are answered once it is loaded", "[integration]") {
  TempDir dir;
  std::string script = write_script(dir, {{"text", "(n - 1)"}, {"load_ms", 1500}});
  LspClient c({"--fake-engine", script, "--debounce-ms", "0"});
  c.initialize();
  c.notify("textDocument/didOpen", open_params(kText));
  // Two requests for the document during the load: the older one is answered empty at once
  // (the newer supersedes it), the newer one with a real suggestion after the load.
  const int64_t first = c.send_request("textDocument/inlineCompletion", inline_params(3, 11, 1));
  const int64_t second = c.send_request("textDocument/inlineCompletion", inline_params(3, 11, 1));
  auto r1 = c.wait_for_response(first);
  REQUIRE(r1);
  CHECK((*r1)["result"]["items"].empty());
  auto r2 = c.wait_for_response(second, 20000);
  REQUIRE(r2);
  INFO(r2->dump());
  REQUIRE((*r2)["result"]["items"].size() == 1);
  CHECK((*r2)["result"]["items"][0]["insertText"] == "(n - 1)");
  json stats = c.request("wafer/stats", nullptr)["result"];
  CHECK(stats["counts"].value("waited_for_model", 0) == 2);
  CHECK(stats["counts"].value("refused_no_model", 0) == 0);
  CHECK(stats["latency_ms"]["model_load_ms"]["p50"].get<double>() >= 1500);
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("lsp session: a request waiting for the model whose position no longer exists is answered with an error", "[integration]") {
  TempDir dir;
  std::string script = write_script(dir, {{"text", "(n - 1)"}, {"load_ms", 800}});
  LspClient c({"--fake-engine", script, "--debounce-ms", "0"});
  c.initialize();
  c.notify("textDocument/didOpen", open_params(kText));
  // During the load: a request at line 3, then the whole text replaced by one line (so the
  // position is gone once the load ends and the request is judged anew), and a request for
  // a document never opened (refused at once). Each gets its one reply, an error.
  const int64_t gone_line = c.send_request("textDocument/inlineCompletion", inline_params(3, 11, 1));
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", 2}}}, {"contentChanges", {{{"text", "x"}}}}});
  const int64_t other_uri = c.send_request("textDocument/inlineCompletion",
                                           inline_completion_params("file:///w/other.py", 0, 0, 1));
  auto r2 = c.wait_for_response(other_uri, 20000);
  REQUIRE(r2);
  CHECK((*r2)["error"]["code"] == -32602);  // never opened: refused at once
  auto r1 = c.wait_for_response(gone_line, 20000);
  REQUIRE(r1);
  INFO(r1->dump());
  CHECK((*r1)["error"]["code"] == -32602);
  CHECK(c.shutdown_and_exit() == 0);
}
