// Drives the real `wafer bench replay` binary against `wafer lsp --fake-engine` (scripted
// latencies and suggestions) and a tiny synthetic model: figures are plausible, acceptance
// is computed right, reports and traces are written, failures are clean.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/support/fixtures/synthetic_model.h"
#include "tests/support/testing.h"

using namespace wafer;
using json = nlohmann::json;

namespace {

const char* kSource =
    "import os\n"
    "\n"
    "\n"
    "def add(a, b):\n"
    "    return a + b\n"
    "\n"
    "\n"
    "def sub(a, b):\n"
    "    return a - b\n";

struct Files {
  test::TempDir dir;
  std::string q(const std::string& name) const { return "'" + (dir / name).string() + "'"; }
};

// A fake engine answering "a, b):" right after "def add(" (what the user types next) and
// "pass" everywhere else, after first_ms.
void write_script(const Files& f, const std::string& name, int first_ms) {
  test::write_file(f.dir / name, json{{"text", "pass"},
                                      {"first_token_ms", first_ms},
                                      {"token_ms", 2},
                                      {"chunk_bytes", 4},
                                      {"rules", {{{"prefix_ends_with", "def add("}, {"text", "a, b):"}}}}}
                                      .dump());
}

json run_json(const std::string& args) {
  test::WaferRun r = test::run_wafer(args + " --json");
  INFO(r.err);
  REQUIRE(r.status == 0);
  return json::parse(r.out);
}

}  // namespace

TEST_CASE("bench replay against the fake engine: latencies and acceptance", "[cli][bench]") {
  Files f;
  test::write_file(f.dir / "s.py", kSource);
  write_script(f, "fake.json", 15);
  json r = run_json("bench replay " + f.q("s.py") + " --fake-engine " + f.q("fake.json") +
                    " --start-line 4 --keystrokes 24 --wpm 250 --debounce-ms 0 --accept 1 --seed 5");
  const json& s = r["summary"];
  INFO(s.dump());
  CHECK(r["trace"]["steps"] == 24);
  // Scripted: 15 ms to the first chunk, 2 ms per further chunk; a few ms of pipes and scheduling.
  CHECK(s["first_text_ms"]["count"].get<int>() > 8);
  CHECK(s["first_text_ms"]["p50"].get<double>() >= 15);
  CHECK(s["first_text_ms"]["p50"].get<double>() < 15 + 15);
  CHECK(s["final_ms"]["p50"].get<double>() >= s["first_text_ms"]["p50"].get<double>());
  CHECK(s["final_ms"]["p50"].get<double>() < 15 + 25);
  // Every answer says where it came from: the engine, the typing-through cache, or (after
  // the accept, when the background run was quicker than the simulated user) what the
  // engine decoded ahead of the cursor.
  CHECK(s["served_by"].value("engine", 0) + s["served_by"].value("typing", 0) + s["served_by"].value("ahead", 0) ==
        s["final_ms"]["count"].get<int>());
  CHECK(s["tokens_generated"]["p50"] == 1);  // "pass": one 4-byte chunk
  // Acceptance: exactly the suggestion after "def add(" is what was typed next, and the
  // simulated user took it (no keystrokes for "a, b):").
  int accepted = 0;
  for (const json& q : r["requests"]) {
    if (q["outcome"] != "shown") continue;
    const bool right = q["text"] == "a, b):";
    CHECK(q["accepted"] == right);
    if (right) {
      ++accepted;
      CHECK(q["matched_chars"] == 6);
      CHECK(q["taken"] == true);
    } else {
      CHECK(q["matched_chars"] == 0);
    }
  }
  CHECK(accepted == 1);
  CHECK(s["accepted"] == 1);
  CHECK(s["taken"] == 1);
  CHECK(s["accepted_chars_per_suggestion"] == 6.0);
  CHECK(s["keystrokes"].get<int>() < 24);  // the Tab replaced six keystrokes (and added one)
  bool accept_trigger = false;
  for (const json& q : r["requests"]) accept_trigger |= q["trigger"] == "accept";
  CHECK(accept_trigger);
  // The daemon's own view came back through wafer/stats.
  CHECK(r["server_stats"]["counts"]["documents_opened"] == 1);
}

TEST_CASE("bench replay: saved traces replay, reports are written, targets compare", "[cli][bench]") {
  Files f;
  test::write_file(f.dir / "s.py", kSource);
  write_script(f, "fast.json", 5);
  write_script(f, "slow.json", 30);
  test::WaferRun r = test::run_wafer("bench replay " + f.q("s.py") + " --fake-engine " + f.q("fast.json") +
                                     " --start-line 2 --keystrokes 12 --wpm 200 --debounce-ms 0 --accept 0 --save-trace " +
                                     f.q("t.jsonl") + " --out " + f.q("r.json") + " --html " + f.q("r.html"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("keystroke -> first text:") != std::string::npos);
  CHECK(r.out.find("12 keystrokes") != std::string::npos);
  json saved = json::parse(test::read_file(f.dir / "r.json"));
  CHECK(saved["summary"]["keystrokes"] == 12);
  CHECK(saved["requests"].size() == 12);
  std::string html = test::read_file(f.dir / "r.html");
  CHECK(html.find("<svg id='histogram-first'") != std::string::npos);
  CHECK(html.find("<svg id='timeline'") != std::string::npos);
  CHECK(html.find("class='bar'") != std::string::npos);
  CHECK(html.find("http") == html.find("http://www.w3.org/2000/svg"));  // nothing fetched

  // The saved trace against two targets: the fake engine and a slower one as an LSP command.
  const std::string slow = "lsp:" + test::wafer_binary().string() + " lsp --debounce-ms 0 --fake-engine " +
                           (f.dir / "slow.json").string();
  json c = run_json("bench replay --trace " + f.q("t.jsonl") + " --fake-engine " + f.q("fast.json") +
                    " --debounce-ms 0 --accept 0 --target '" + slow + "'");
  REQUIRE(c["runs"].size() == 2);
  CHECK(c["trace"]["source"] != "synthesized");
  for (const json& run : c["runs"]) CHECK(run["summary"]["keystrokes"] == 12);
  const double fast_p50 = c["runs"][0]["summary"]["first_text_ms"]["p50"], slow_p50 = c["runs"][1]["summary"]["first_text_ms"]["p50"];
  CHECK(fast_p50 >= 5);
  CHECK(slow_p50 >= 30);
  CHECK(slow_p50 > fast_p50);
}

TEST_CASE("bench replay on a tiny synthetic model", "[cli][bench][engine]") {
  Files f;
  SyntheticModelSpec spec;
  spec.architecture = "qwen2";
  REQUIRE(write_synthetic_model(spec, f.dir / "tiny.gguf"));
  test::write_file(f.dir / "s.py", kSource);
  json r = run_json("bench replay " + f.q("s.py") + " --model " + f.q("tiny.gguf") +
                    " --threads 1 --max-tokens 4 --keystrokes 10 --wpm 300 --start-line 4");
  const json& s = r["summary"];
  INFO(r.dump(1).substr(0, 3000));
  CHECK(s["keystrokes"] == 10);
  CHECK(s["outcomes"].value("error", 0) == 0);
  CHECK(s["final_ms"]["count"].get<int>() >= 1);
  CHECK(s["final_ms"]["p50"].get<double>() > 0);
  CHECK(s["tokens_generated"]["max"].get<double>() <= 4);
  CHECK(r["server_errors"].empty());
}

TEST_CASE("bench: usage errors and failing servers", "[cli][bench]") {
  Files f;
  test::write_file(f.dir / "s.py", kSource);
  auto status_and_err = [](const std::string& args) {
    test::WaferRun r = test::run_wafer(args);
    return std::make_pair(r.status, r.err);
  };
  auto [s1, e1] = status_and_err("bench");
  CHECK(s1 == 2);
  CHECK(e1.find("expected 'replay' or 'infill'") != std::string::npos);
  auto [s2, e2] = status_and_err("bench dance " + f.q("s.py"));
  CHECK(s2 == 2);
  auto [s3, e3] = status_and_err("bench replay " + f.q("s.py"));
  CHECK(s3 == 2);
  CHECK(e3.find("--model") != std::string::npos);
  test::write_file(f.dir / "bad.jsonl", "{\"wafer_trace\": 1, \"text\": \"x\"}\n{\"t\": \"soon\"}\n");
  auto [s4, e4] = status_and_err("bench replay --trace " + f.q("bad.jsonl") + " --model m.gguf");
  CHECK(s4 == 2);
  CHECK(e4.find("trace line 2: missing \"t\"") != std::string::npos);
  auto [s5, e5] = status_and_err("bench replay " + f.q("s.py") + " --keystrokes 3 -- /bin/false");
  CHECK(s5 == 1);
  CHECK(e5.find("the server exited") != std::string::npos);
  auto [s6, e6] = status_and_err("bench infill " + f.q("s.py"));
  CHECK(s6 == 2);
  CHECK(e6.find("--url") != std::string::npos);
  auto [s7, e7] = status_and_err("bench replay " + f.q("s.py") + " --model x --target nonsense");
  CHECK(s7 == 2);
  CHECK(e7.find("--target 'nonsense'") != std::string::npos);
}
