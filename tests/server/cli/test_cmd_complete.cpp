// Drives the real `wafer complete FILE:LINE:COL` on the bundled model: the suggestion on
// stdout with the model and timings on stderr, --json, the same answer as the daemon gives
// for the same document and position, and one-line errors; and a pulled catalogue model
// with the draft the catalogue pairs it with.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/fixtures/synthetic_model.h"
#include "tests/support/lsp_client.h"
#include "tests/support/testing.h"

using namespace wafer;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A file whose last line invites a completion: line 11 ends after "return ".
const char* kSample =
    "def area(w, h):\n"
    "    return w * h\n"
    "\n"
    "\n"
    "def perimeter(w, h):\n"
    "    return 2 * (w + h)\n"
    "\n"
    "\n"
    "def volume(w, h, d):\n"
    "    # the product of the three sides\n"
    "    return \n";

// The pull cache pointed at an empty folder for the scope, so a model someone pulled on
// this machine is not chosen over the bundled one.
class EmptyPullCache {
 public:
  EmptyPullCache() {
    if (const char* old = std::getenv("XDG_CACHE_HOME")) old_ = old;
    setenv("XDG_CACHE_HOME", dir_.path().c_str(), 1);
  }
  ~EmptyPullCache() {
    if (old_) setenv("XDG_CACHE_HOME", old_->c_str(), 1);
    else unsetenv("XDG_CACHE_HOME");
  }

 private:
  test::TempDir dir_;
  std::optional<std::string> old_;
};

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

size_t lines_of(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("wafer complete: a suggestion from the bundled model, with the model and timings", "[cli][complete]") {
  EmptyPullCache cache;
  test::TempDir dir;
  test::write_file(dir / "shapes.py", kSample);
  const std::string at = quoted(dir / "shapes.py") + ":11:12";

  test::WaferRun r = test::run_wafer("complete " + at + " --threads 1");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_FALSE(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("model: ") && Catch::Contains("wafer-tiny-code-q8_0.gguf") &&
                        Catch::Contains("wafer pull qwen2.5-coder"));
  CHECK_THAT(r.err, Catch::Matches("(.|\n)*time: first token [0-9.]+ ms, end [0-9.]+ ms(.|\n)*"));

  test::WaferRun j = test::run_wafer("complete " + at + " --threads 1 --json");
  INFO(j.err);
  REQUIRE(j.status == 0);
  const json doc = json::parse(j.out);
  CHECK(doc["suggestion"].get<std::string>() + "\n" == r.out);  // greedy: the same answer
  CHECK(doc["line"] == 11);
  CHECK(doc["column"] == 12);
  CHECK(doc["model"]["source"] == "bundled");
  CHECK(doc["model"]["path"].get<std::string>().ends_with("wafer-tiny-code-q8_0.gguf"));
  CHECK(doc["first_token_ms"].get<double>() > 0);
  CHECK(doc["total_ms"].get<double>() >= doc["first_token_ms"].get<double>());
  CHECK(doc["tokens_generated"].get<int>() > 0);
  CHECK(doc["mode"] == "multi_line");

  // --max-tokens bounds the answer; a column inside the line gives a single-line suggestion.
  test::WaferRun one = test::run_wafer("complete " + at + " --threads 1 --json --max-tokens 1");
  REQUIRE(one.status == 0);
  CHECK(json::parse(one.out)["tokens_generated"].get<int>() <= 1);
  test::WaferRun mid = test::run_wafer("complete " + quoted(dir / "shapes.py") + ":2:12 --threads 1 --json");
  REQUIRE(mid.status == 0);
  CHECK(json::parse(mid.out)["mode"] == "single_line");
}

TEST_CASE("wafer complete: a pulled catalogue model drafts with its pulled draft unless told otherwise",
          "[cli][complete][draft_model]") {
  test::TempDir dir;
  test::ScopedEnv cache_home("XDG_CACHE_HOME", (dir / "cache").string().c_str());
  const fs::path models = dir / "cache" / "wafer" / "models";
  fs::create_directories(models);
  SyntheticModelSpec spec;  // the same vocabulary, other weights and depth
  spec.seed = 1;
  REQUIRE(write_synthetic_model(spec, models / "big.gguf").ok());
  spec.seed = 2;
  spec.n_layer = 1;
  REQUIRE(write_synthetic_model(spec, models / "small.gguf").ok());
  const std::string digest(64, '0');  // choosing a pulled file reads no digest
  test::write_file(dir / "team.txt", "small 1 " + digest + " https://models.example/small.gguf\n" +
                                         "big 1 " + digest + " https://models.example/big.gguf draft=small\n");
  test::ScopedEnv catalog("WAFER_CATALOG", (dir / "team.txt").string().c_str());
  test::write_file(dir / "shapes.py", kSample);
  const std::string at = quoted(dir / "shapes.py") + ":11:12 --threads 1 --max-tokens 4 --json";

  // Unset: the most capable pulled model, with the draft the catalogue pairs it with, read
  // as Q5_0; the same text as without it.
  test::WaferRun paired = test::run_wafer("complete " + at);
  INFO(paired.err);
  REQUIRE(paired.status == 0);
  const json with = json::parse(paired.out);
  CHECK(with["model"]["path"] == (models / "big.gguf").string());
  CHECK_THAT(with["draft_model"].get<std::string>(), Catch::EndsWith("parameters, weights read as Q5_0"));
  test::WaferRun none = test::run_wafer("complete " + at + " --draft-model none");
  REQUIRE(none.status == 0);
  const json without = json::parse(none.out);
  CHECK(without["draft_model"] == "");
  CHECK(without["suggestion"] == with["suggestion"]);
  // Named: that draft, as stored with --draft-quant keep.
  test::WaferRun named = test::run_wafer("complete " + at + " --draft-model small --draft-quant keep");
  REQUIRE(named.status == 0);
  CHECK_THAT(json::parse(named.out)["draft_model"].get<std::string>(), Catch::EndsWith(" parameters"));
  // A draft that cannot draft for it (another vocabulary): left out, with a line saying so.
  fs::rename(models / "small.gguf", dir / "small.gguf");
  spec.n_vocab = 400;
  REQUIRE(write_synthetic_model(spec, models / "small.gguf").ok());
  test::WaferRun mismatched = test::run_wafer("complete " + at);
  INFO(mismatched.err);
  REQUIRE(mismatched.status == 0);
  CHECK(json::parse(mismatched.out)["draft_model"] == "");
  CHECK_THAT(mismatched.err, Catch::Contains("the draft model " + (models / "small.gguf").string() + " is left out") &&
                                 Catch::Contains("vocabulary"));
  // The draft not pulled: no draft. A model that is no catalogue model: no draft.
  fs::remove(models / "small.gguf");
  CHECK(json::parse(test::run_wafer("complete " + at).out)["draft_model"] == "");
  test::WaferRun by_path = test::run_wafer("complete " + at + " --model " + quoted(models / "big.gguf"));
  CHECK(json::parse(by_path.out)["draft_model"] == "");
}

TEST_CASE("wafer complete answers what the daemon answers at the same position", "[cli][complete]") {
  EmptyPullCache cache;
  test::TempDir dir;
  test::write_file(dir / "shapes.py", kSample);
  test::WaferRun r = test::run_wafer("complete " + quoted(dir / "shapes.py") + ":11:12 --threads 1 --json");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const std::string cli = json::parse(r.out)["suggestion"];

  // An editor with the file's folder open (no .git above the temporary folder: the CLI takes
  // the file's folder as the workspace too), asking once; no alternatives, greedy only.
  test::LspClient c({"--threads", "1", "--alternatives", "1", "--debounce-ms", "0"});
  const std::string root = "file://" + dir.path().string();
  const std::string uri = root + "/shapes.py";
  c.request("initialize", {{"processId", nullptr}, {"rootUri", root}, {"capabilities", json::object()}});
  c.notify("initialized", json::object());
  REQUIRE(c.wait_for([](const json& m) {
    return m.value("method", "") == "window/logMessage" &&
           m["params"]["message"].get<std::string>().find("model loaded") != std::string::npos;
  }, 30000));
  c.notify("textDocument/didOpen",
           {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", kSample}}}});
  json reply = c.request("textDocument/inlineCompletion", test::inline_completion_params(uri, 10, 11), 30000);
  INFO(reply.dump());
  REQUIRE(reply["result"]["items"].size() == (cli.empty() ? 0u : 1u));
  if (!cli.empty()) CHECK(reply["result"]["items"][0]["insertText"] == cli);
  CHECK(c.shutdown_and_exit() == 0);
}

TEST_CASE("wafer complete: errors are one line on stderr and a non-zero exit", "[cli][complete]") {
  EmptyPullCache cache;
  test::TempDir dir;
  test::write_file(dir / "shapes.py", kSample);
  const std::string file = quoted(dir / "shapes.py");

  test::WaferRun missing = test::run_wafer("complete " + quoted(dir / "nope.py") + ":1:1");
  CHECK(missing.status == 1);
  CHECK(missing.err == "wafer complete: " + (dir / "nope.py").string() + ": no such file\n");

  test::WaferRun line = test::run_wafer("complete " + file + ":13:1");
  CHECK(line.status == 1);
  CHECK_THAT(line.err, Catch::Contains("line 13 is past the end of the file (it has 12 lines)"));
  CHECK(lines_of(line.err) == 1);

  test::WaferRun column = test::run_wafer("complete " + file + ":2:18");
  CHECK(column.status == 1);
  CHECK_THAT(column.err, Catch::Contains("column 18 is past the end of line 2 (columns 1 to 17)"));
  CHECK(lines_of(column.err) == 1);

  test::WaferRun bad_model = test::run_wafer("complete " + file + ":11:12 --model " + quoted(dir / "none.gguf"));
  CHECK(bad_model.status == 1);
  CHECK_THAT(bad_model.err, Catch::StartsWith("wafer complete: ") && Catch::Contains("none.gguf"));
  CHECK(lines_of(bad_model.err) == 1);

  test::write_file(dir / "text.gguf", "not a model");
  test::WaferRun not_gguf = test::run_wafer("complete " + file + ":11:12 --model " + quoted(dir / "text.gguf"));
  CHECK(not_gguf.status == 1);
  CHECK(lines_of(not_gguf.err) == 1);

  test::WaferRun unknown_name = test::run_wafer("complete " + file + ":11:12 --model qwen-giant");
  CHECK(unknown_name.status == 1);
  CHECK_THAT(unknown_name.err, Catch::Contains("wafer pull --list"));
  CHECK(lines_of(unknown_name.err) == 1);

  for (const std::string& arg : {file, file + ":11", file + ":0:1", file + ":1:0", file + ":x:1", std::string("")}) {
    test::WaferRun usage = test::run_wafer("complete " + arg);
    INFO(arg);
    CHECK(usage.status == 2);
    CHECK_THAT(usage.err, Catch::Contains("FILE:LINE:COL"));
    CHECK(lines_of(usage.err) == 1);
  }
  CHECK(test::run_wafer("complete " + file + ":1:1 " + file + ":2:1").status == 2);
}

TEST_CASE("wafer complete: a file name with ':' and a cursor past multi-byte characters", "[cli][complete]") {
  EmptyPullCache cache;
  test::TempDir dir;
  test::write_file(dir / "a:b.py", "name = \"h\xc3\xa9llo\"\nx = \n");
  // Column 15 is just past the closing quote: 14 characters, one of them two bytes.
  test::WaferRun end = test::run_wafer("complete " + quoted(dir / "a:b.py") + ":1:15 --threads 1 --max-tokens 2");
  INFO(end.err);
  CHECK(end.status == 0);
  test::WaferRun past = test::run_wafer("complete " + quoted(dir / "a:b.py") + ":1:16");
  CHECK(past.status == 1);
  CHECK_THAT(past.err, Catch::Contains("(columns 1 to 15)"));
}
